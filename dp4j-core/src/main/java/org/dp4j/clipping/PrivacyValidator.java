package org.dp4j.clipping;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.graph.vertex.GraphVertex;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;

/**
 * Lists, before any training, the path every layer (or graph vertex) of a network will take in per-example
 * clipping — vectorised, registered, generic, frozen, no parameters, or refused with the reason and the replacement
 * — in the spirit of Opacus' {@code ModuleValidator}. The private networks and {@code ClippableModel} call it when
 * they are built, so a refused network fails before its first step, naming every refused layer at once.
 *
 * <pre>{@code
 * // given: MultiLayerNetwork net
 * ValidationReport report = PrivacyValidator.inspect(net);
 * System.out.print(report);              // one line per layer: name, type, path, detail
 * report.requireSupported();             // IllegalArgumentException listing every refusal
 * }</pre>
 */
public final class PrivacyValidator {
  private PrivacyValidator() {
  }

  /** The path of every layer of an initialised {@link MultiLayerNetwork}. */
  public static ValidationReport inspect(MultiLayerNetwork net) {
    checkArgument(net != null && net.params() != null, "network must be initialised (call net.init())");
    StepCounts counts = StepCounts.of(net::getIterationCount, net::getEpochCount);
    List<ValidationReport.Entry> entries = new ArrayList<>();
    int last = net.getnLayers() - 1;
    for (int i = 0; i <= last; i++) {
      int index = i;
      Layer layer = net.getLayer(i);
      // The network's configuration names wrappers (LastTimeStep); a wrapper layer's conf() is the wrapped one's.
      org.deeplearning4j.nn.conf.layers.Layer conf = net.getLayerWiseConfigurations().getConf(i).getLayer();
      String where = LayerRules.describe(conf, i);
      entries.add(entry(where, conf, layer, () -> {
        LayerRules.checkPreprocessor(net.getLayerWiseConfigurations().getInputPreProcess(index),
            "input preprocessor of layer " + index);
        return LayerRules.ruleFor(layer, where, index == last, counts, ConvolutionGradients.CHUNK_ELEMENTS,
            ConvolutionNorms.BY_COST);
      }));
    }
    return new ValidationReport(entries, networkProblems(entries,
        () -> LayerRules.forNetwork(net, ConvolutionGradients.CHUNK_ELEMENTS, ConvolutionNorms.BY_COST)));
  }

  /** The path of every vertex (input vertices left out) of an initialised {@link ComputationGraph}. */
  public static ValidationReport inspect(ComputationGraph graph) {
    checkArgument(graph != null && graph.params() != null, "graph must be initialised (call graph.init())");
    StepCounts counts = StepCounts.of(graph::getIterationCount, graph::getEpochCount);
    ComputationGraphConfiguration conf = graph.getConfiguration();
    List<ValidationReport.Entry> entries = new ArrayList<>();
    for (int idx : graph.topologicalSortOrder()) {
      GraphVertex v = graph.getVertices()[idx];
      String name = v.getVertexName();
      if (v.isInputVertex()) {
        continue;
      }
      if (v.hasLayer()) {
        Layer layer = v.getLayer();
        org.deeplearning4j.nn.conf.layers.Layer layerConf =
            ((LayerVertex) conf.getVertices().get(name)).getLayerConf().getLayer();
        String where = "vertex '" + name + "' (" + layerConf.getClass().getSimpleName() + ")";
        entries.add(entry(where, layerConf, layer, () -> {
          LayerRules.checkPreprocessor(((LayerVertex) conf.getVertices().get(name)).getPreProcessor(),
              where + ": input preprocessor");
          return LayerRules.ruleFor(layer, where, conf.getNetworkOutputs().contains(name), counts,
              ConvolutionGradients.CHUNK_ELEMENTS, ConvolutionNorms.BY_COST);
        }));
      } else {
        org.deeplearning4j.nn.conf.graph.GraphVertex vertexConf = conf.getVertices().get(name);
        String type = vertexConf.getClass().getSimpleName();
        try {
          VertexRules.check(vertexConf, name);
          checkArgument(v.numParams() == 0, "vertex '%s' has parameters but no layer; not supported", name);
          entries.add(new ValidationReport.Entry("vertex '" + name + "'", type,
              FrozenLayers.isFrozen(v) ? LayerPath.FROZEN : LayerPath.NO_PARAMETERS, "errors pass through DL4J's "
              + "doBackward"));
        } catch (IllegalArgumentException e) {
          entries.add(new ValidationReport.Entry("vertex '" + name + "'", type, LayerPath.REFUSED, e.getMessage()));
        }
      }
    }
    return new ValidationReport(entries, networkProblems(entries,
        () -> GraphPerExampleClipper.of(graph, ClippingMode.FLAT)));
  }

  private interface Check<T> {
    T run();
  }

  private static ValidationReport.Entry entry(String where, org.deeplearning4j.nn.conf.layers.Layer conf, Layer layer,
      Check<PerExampleLayer> rule) {
    String name = where.substring(0, where.lastIndexOf(" ("));
    String type = conf.getClass().getSimpleName();
    PerExampleLayer r;
    try {
      r = rule.run();
    } catch (IllegalArgumentException e) {
      return new ValidationReport.Entry(name, type, LayerPath.REFUSED, e.getMessage());
    }
    if (LayerRules.isFrozen(layer)) {
      return new ValidationReport.Entry(name, type, LayerPath.FROZEN, FrozenLayers.passesErrorsBack(layer)
          ? "forward only; errors pass back through it" : "forward only");
    }
    if (!(layer instanceof org.deeplearning4j.nn.layers.wrapper.BaseWrapperLayer)
        && LayerRuleRegistry.lookup(layer.conf().getLayer().getClass()).isPresent()) {
      return new ValidationReport.Entry(name, type, LayerPath.REGISTERED, r.getClass().getName());
    }
    if (!r.hasParams()) {
      return new ValidationReport.Entry(name, type, LayerPath.NO_PARAMETERS, r.isOutput()
          ? "loss gradient per example" : "errors pass through DL4J's batched backprop");
    }
    if (r instanceof GenericLayerGradients) {
      return new ValidationReport.Entry(name, type, LayerPath.GENERIC, "DL4J's own backprop one example at a time "
          + "(exact; about one pass of the layer per example)");
    }
    return new ValidationReport.Entry(name, type, LayerPath.VECTORISED, r.getClass().getSimpleName());
  }

  /** Refusals that only the whole network shows, looked for when every layer passed on its own. */
  private static List<String> networkProblems(List<ValidationReport.Entry> entries, Check<?> whole) {
    List<String> problems = new ArrayList<>();
    if (entries.stream().noneMatch(e -> e.path() == LayerPath.REFUSED)) {
      try {
        whole.run();
      } catch (IllegalArgumentException e) {
        problems.add(e.getMessage());
      }
    }
    return problems;
  }
}
