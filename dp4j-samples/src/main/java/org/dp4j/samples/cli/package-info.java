/**
 * The {@code dp4j} command line (picocli): {@code train}, {@code account}, {@code calibrate}, {@code experiment} and
 * their sub-commands. Commands parse and validate options and call the library; they are not an API.
 */
package org.dp4j.samples.cli;
