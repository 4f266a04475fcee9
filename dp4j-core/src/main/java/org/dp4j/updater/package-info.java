/**
 * The DP-SGD mechanism on DL4J: {@link org.dp4j.updater.DpSgd} (an {@code IUpdater} carrying C, z, the expected
 * batch size and the base updater), {@link org.dp4j.updater.DpSgdStep} (one private step), and the noise sources.
 */
package org.dp4j.updater;
