package org.dp4j.clipping;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.deeplearning4j.nn.conf.layers.Layer;

/**
 * Per-example rules users register for their own layer classes (as Opacus' {@code register_grad_sampler}). The
 * clippers consult it before dp4j's built-in rules, for the exact configuration class registered (a subclass may
 * compute something else, so it is not matched). Frozen layers take no part in clipping whatever is registered.
 * The registry is global to the JVM; register before building a clipper or a private network.
 *
 * <pre>{@code
 * // given: MultiLayerNetwork net
 * // with your own layer class FeatureScaleLayer and its rule FeatureScaleRule (see PerExampleLayer):
 * // LayerRuleRegistry.register(FeatureScaleLayer.class, FeatureScaleRule::new);   // see PerExampleLayer
 * PerExampleClipper clipper = PerExampleClipper.of(net);                         // uses FeatureScaleRule
 * LayerRuleRegistry.register(DenseLayer.class, LayerRuleRegistry.generic());    // force the generic path
 * }</pre>
 *
 * <p>A registered rule is trusted: dp4j cannot check that it returns each example's own gradient, and the privacy
 * guarantee holds only if it does ({@link ExactPerExampleGradients} is the reference to test it against).
 */
public final class LayerRuleRegistry {
  private static final Map<Class<? extends Layer>, LayerRuleFactory> RULES = new ConcurrentHashMap<>();

  private LayerRuleRegistry() {
  }

  /**
   * Registers (or replaces) the rule for layers whose configuration class is exactly {@code layerClass}.
   *
   * @return the factory it replaces, if any
   */
  public static Optional<LayerRuleFactory> register(Class<? extends Layer> layerClass, LayerRuleFactory factory) {
    checkArgument(layerClass != null && factory != null, "layerClass and factory must not be null, were %s and %s",
        layerClass, factory);
    return Optional.ofNullable(RULES.put(layerClass, factory));
  }

  /** Removes the rule registered for {@code layerClass}; returns it, if there was one. */
  public static Optional<LayerRuleFactory> unregister(Class<? extends Layer> layerClass) {
    return Optional.ofNullable(RULES.remove(layerClass));
  }

  /** The rule registered for exactly this configuration class. */
  public static Optional<LayerRuleFactory> lookup(Class<? extends Layer> layerClass) {
    return Optional.ofNullable(RULES.get(layerClass));
  }

  /**
   * The generic exact rule (DL4J's own backprop one example at a time, in bounded memory): register it for a class
   * to force that path, e.g. to compare a vectorised rule with it or to measure what the vectorised rule saves.
   */
  public static LayerRuleFactory generic() {
    return layer -> GenericLayerGradients.of(layer, GenericLayerGradients.STORE_ELEMENTS);
  }
}
