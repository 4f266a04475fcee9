/**
 * The DP-SGD mechanism on DL4J: {@link org.dp4j.updater.DpSgd} (an {@code IUpdater} carrying C, z, the expected
 * batch size and the base updater), {@link org.dp4j.updater.PrivateGradient} (the private gradient of one step over
 * any {@link org.dp4j.updater.ClippableModel}), {@link org.dp4j.updater.DpSgdStep} (one private step, dp4j's
 * lower-level API) and {@link org.dp4j.updater.PrivateFitUpdater} (DL4J's updater for a private network's
 * {@code fit}).
 */
package org.dp4j.updater;
