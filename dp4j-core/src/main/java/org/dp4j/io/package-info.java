/**
 * Writing files safely: every file dp4j writes goes through {@link org.dp4j.io.AtomicFiles} (a temporary file in
 * the same folder, forced to disk, then renamed), and output paths are checked before any work starts
 * ({@link org.dp4j.io.OutputPaths}).
 */
package org.dp4j.io;
