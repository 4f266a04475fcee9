/**
 * Reading the data sets the samples and the CLI train on: IDX files (MNIST, Fashion-MNIST) validated before use
 * ({@link org.dp4j.data.DataFileException} names the file and what is wrong), labelled images and vectors, the
 * SpamAssassin mail corpus with a data-independent hashed tokeniser for private text models, and synthetic
 * classification tasks with a known answer for tests and benchmarks.
 */
package org.dp4j.data;
