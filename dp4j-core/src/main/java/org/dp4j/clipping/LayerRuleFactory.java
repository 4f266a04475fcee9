package org.dp4j.clipping;

import org.deeplearning4j.nn.api.Layer;

/**
 * Makes the {@link PerExampleLayer} rule of one layer of one network (a rule keeps the state of a pass, so every
 * layer gets its own). Registered per layer configuration class with {@link LayerRuleRegistry}.
 *
 * <pre>{@code
 * // with your own layer class FeatureScaleLayer and its rule FeatureScaleRule (see PerExampleLayer):
 * // LayerRuleRegistry.register(FeatureScaleLayer.class, FeatureScaleRule::new);
 * }</pre>
 */
@FunctionalInterface
public interface LayerRuleFactory {

  /**
   * The rule of {@code layer}, a layer of an initialised network whose configuration ({@code layer.conf()
   * .getLayer()}) is of the registered class.
   */
  PerExampleLayer create(Layer layer);
}
