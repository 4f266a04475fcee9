package org.dp4j.clipping;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.api.MaskState;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.InputPreProcessor;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.graph.vertex.GraphVertex;
import org.deeplearning4j.nn.graph.vertex.VertexIndices;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.common.primitives.Pair;

/**
 * Vectorised per-example clipping for a DL4J {@link ComputationGraph} (multiple inputs and outputs, skip
 * connections): one forward pass over the batch in topological order, one backward pass of per-example errors δ
 * (the error of every example's own loss, not the batch mean), per-example gradient norms summed over every layer
 * with trainable parameters, clip factors c_i = min(1, C/‖g_i‖), and the clipped sum Σ_i c_i g_i written layer by
 * layer (Abadi et al. 2016, Alg. 1) — batched matrix operations, no loop over examples.
 *
 * <p>Layers use the same per-example rules as {@link PerExampleClipper} (registered rules, then dense with or without
 * layer norm, output and loss layers, 1-D/2-D/3-D, depthwise, separable and transposed convolutions, embeddings,
 * PReLU, pooling, activation, dropout, local response normalisation, upsampling, padding, cropping, recurrent layers and their
 * wrappers, then the generic
 * exact path for any other layer that keeps examples independent). Parameter-free vertices that keep
 * row i of their output a function of row i of their inputs (merge, element-wise, subset, preprocessor, scale,
 * shift, L2-normalise, reshape, last-time-step, duplicate-to-time-series) pass the errors back through DL4J's own
 * {@code doBackward}; an error reaching a vertex from several consumers is summed. Frozen layers
 * ({@code FrozenLayer}, {@code FrozenLayerWithBackprop}, {@code FrozenVertex}, {@code setFeatureExtractor}) add
 * nothing to the norms and get zeros in the sum. Everything else — vertices that stack examples, layers with
 * batch statistics such as {@code BatchNormalization}, unsupported layer types — is refused when the clipper is
 * built, with a message naming the vertex. Feature masks reach each layer as DL4J propagates them (a masked time
 * step of a recurrent layer contributes nothing); label masks select the output's loss terms.
 *
 * <pre>{@code
 * // given: ComputationGraph graph; MultiDataSet batch
 * GraphPerExampleClipper clipper = GraphPerExampleClipper.of(graph, ClippingMode.FLAT);
 * INDArray sum = Nd4j.create(graph.params().dataType(), 1, graph.numParams());
 * ClippedGradientSum s = clipper.clippedSum(batch.getFeatures(), batch.getLabels(), 1.0, sum);  // a MultiDataSet
 * int clipped = s.clippedCount();
 * }</pre>
 *
 * <p>The sum is in the layout of {@code graph.getFlattenedGradients()} and excludes L1/L2 regularisation (data
 * independent, added by DL4J's updater). Not thread-safe: an instance keeps the state of one pass.
 */
public final class GraphPerExampleClipper {
  private static final String WORKSPACE_ID = "DP4J_GRAPH_PER_EXAMPLE_CLIPPING";

  private final ComputationGraph graph;
  private final ClippingMode mode;
  private final List<Node> nodes;        // topological order
  private final int vertexCount;
  private final boolean readsNetworkInputs;
  private final int[] positions;         // of each vertex in the topological order
  private INDArray saved;                // the target of addClippedSum while the pass runs

  /** One vertex of the graph and what the clipper does with it. */
  private static final class Node {
    final GraphVertex vertex;
    final int index;
    final int[] inputs;                  // vertex index of each input edge
    final PerExampleLayer rule;          // null for vertices without a layer
    final InputPreProcessor preprocessor;  // of a layer's input, or of a PreprocessorVertex
    final int networkInput;              // index in the network's inputs, or -1
    final int networkOutput;             // index in the network's outputs, or -1
    final long offset;                   // of its parameters in the flattened gradient
    final long size;
    final boolean copyInput;             // its layer may modify an input that other vertices still read
    final boolean passesErrors;          // DL4J backpropagates through it (not a FrozenVertex)
    boolean needsError;                  // some trainable layer at or above this vertex needs its output error

    Node(GraphVertex vertex, int[] inputs, PerExampleLayer rule, InputPreProcessor preprocessor, int networkInput,
        int networkOutput, long offset, boolean copyInput, boolean passesErrors) {
      this.vertex = vertex;
      this.index = vertex.getVertexIndex();
      this.inputs = inputs;
      this.rule = rule;
      this.preprocessor = preprocessor;
      this.networkInput = networkInput;
      this.networkOutput = networkOutput;
      this.offset = offset;
      this.size = vertex.numParams();
      this.copyInput = copyInput;
      this.passesErrors = passesErrors;
    }

    boolean trainable() {
      return rule != null && rule.hasParams();
    }
  }

  private GraphPerExampleClipper(ComputationGraph graph, ClippingMode mode, List<Node> nodes,
      boolean readsNetworkInputs) {
    this.graph = graph;
    this.mode = mode;
    this.nodes = nodes;
    this.vertexCount = graph.getVertices().length;
    this.readsNetworkInputs = readsNetworkInputs;
    this.positions = new int[vertexCount];
    for (int p = 0; p < nodes.size(); p++) {
      positions[nodes.get(p).index] = p;
    }
  }

  /**
   * Validates every vertex, layer and preprocessor of an initialised graph.
   *
   * @throws IllegalArgumentException naming the first vertex whose per-example gradient is not supported
   */
  public static GraphPerExampleClipper of(ComputationGraph graph, ClippingMode mode) {
    return of(graph, mode, ConvolutionGradients.CHUNK_ELEMENTS, ConvolutionNorms.BY_COST);
  }

  /** As {@link #of(ComputationGraph, ClippingMode)}, with the convolution chunk bound and norm form given. */
  static GraphPerExampleClipper of(ComputationGraph graph, ClippingMode mode, long convolutionChunkElements,
      ConvolutionNorms norms) {
    checkArgument(graph != null && graph.params() != null,
        "graph must be initialised (call graph.init()) before building a clipper");
    checkArgument(mode != null, "clipping mode must not be null");
    StepCounts counts = StepCounts.of(graph::getIterationCount, graph::getEpochCount);
    GraphVertex[] vertices = graph.getVertices();
    List<Node> nodes = new ArrayList<>(vertices.length);
    boolean[] needsError = new boolean[vertices.length];
    long offset = 0;
    for (int idx : graph.topologicalSortOrder()) {
      Node node = node(graph, vertices[idx], offset, counts, convolutionChunkElements, norms);
      node.needsError = node.trainable()
          || node.passesErrors && Arrays.stream(node.inputs).anyMatch(i -> needsError[i]);
      needsError[idx] = node.needsError;
      nodes.add(node);
      offset += node.size;
    }
    boolean readsInputs = nodes.stream().anyMatch(n -> !n.vertex.hasLayer() && !n.vertex.isInputVertex()
        && VertexRules.readsNetworkInputs(graph.getConfiguration().getVertices().get(n.vertex.getVertexName())));
    checkArgument(nodes.stream().anyMatch(Node::trainable), "graph has no trainable parameters");
    if (graph.getFlattenedGradients() == null) {
      graph.initGradientsView();
    }
    return new GraphPerExampleClipper(graph, mode, List.copyOf(nodes), readsInputs);
  }

  /** The node of one vertex, validated; throws IllegalArgumentException naming the vertex if unsupported. */
  private static Node node(ComputationGraph graph, GraphVertex v, long offset, StepCounts counts,
      long convolutionChunkElements, ConvolutionNorms norms) {
    ComputationGraphConfiguration conf = graph.getConfiguration();
    List<String> outputs = conf.getNetworkOutputs();
    String name = v.getVertexName();
    int[] in = inputIndices(v);
    PerExampleLayer rule = null;
    InputPreProcessor pre = null;
    if (v.hasLayer()) {
      Layer layer = v.getLayer();
      String where = "vertex '" + name + "' (" + layer.conf().getLayer().getClass().getSimpleName() + ")";
      boolean output = outputs.contains(name);
      checkArgument(!output || v.getNumOutputConnections() == 0,
          "%s: an output layer that also feeds other vertices is not supported", where);
      rule = LayerRules.ruleFor(layer, where, output, counts, convolutionChunkElements, norms);
      pre = ((LayerVertex) conf.getVertices().get(name)).getPreProcessor();
      LayerRules.checkPreprocessor(pre, where + ": input preprocessor");
    } else if (!v.isInputVertex()) {
      org.deeplearning4j.nn.conf.graph.GraphVertex vertexConf = conf.getVertices().get(name);
      VertexRules.check(vertexConf, name);
      checkArgument(!outputs.contains(name), "vertex '%s': a network output must be an OutputLayer or a LossLayer",
          name);
      checkArgument(v.numParams() == 0, "vertex '%s' has parameters but no layer; not supported", name);
      // Applied here with the batch's own size (DL4J's vertex asks the graph, whose labels may be stale).
      pre = VertexRules.preprocessor(vertexConf);
    }
    boolean copyInput = rule instanceof NoParameterLayer && in.length == 1
        && graph.getVertices()[in[0]].getNumOutputConnections() > 1;
    // Like DL4J's own backprop, nothing passes back through a FrozenVertex or a FrozenLayer.
    boolean passes = !(v instanceof org.deeplearning4j.nn.graph.vertex.impl.FrozenVertex
        || v.hasLayer() && v.getLayer() instanceof org.deeplearning4j.nn.layers.FrozenLayer);
    int networkInput = v.isInputVertex() ? conf.getNetworkInputs().indexOf(name) : -1;
    return new Node(v, in, rule, pre, networkInput, outputs.indexOf(name), offset, copyInput, passes);
  }

  private static int[] inputIndices(GraphVertex v) {
    VertexIndices[] in = v.getInputVertices();
    return in == null ? new int[0] : Arrays.stream(in).mapToInt(VertexIndices::getVertexIndex).toArray();
  }

  public ClippingMode mode() {
    return mode;
  }

  /**
   * Writes Σ_i clip_C(g_i) of the batch into {@code target} (overwriting it), without masks; arguments as in
   * {@link #addClippedSum}.
   */
  public ClippedGradientSum clippedSum(INDArray[] features, INDArray[] labels, double clipNorm, INDArray target) {
    return run(features, labels, null, null, clipNorm, target, false);
  }

  /**
   * Adds Σ_i clip_C(g_i) of the batch into {@code target}: the clipped sums of the micro-batches of one logical
   * batch accumulate (each example is still clipped on its own, so the sensitivity stays C).
   *
   * @param features one array per network input, one example per row (first dimension); may have 0 rows
   * @param labels one array per network output, as its loss takes them
   * @param featureMasks null, or one array (or null) per network input, e.g. [n, T] for time series
   * @param labelMasks null, or one array (or null) per network output; masked entries contribute nothing
   * @param clipNorm C &gt; 0
   * @param target row vector [1, graph.numParams()] in the layout of {@code graph.getFlattenedGradients()} (may
   *     be that array); frozen parameters get 0 added
   */
  public ClippedGradientSum addClippedSum(INDArray[] features, INDArray[] labels, INDArray[] featureMasks,
      INDArray[] labelMasks, double clipNorm, INDArray target) {
    return run(features, labels, featureMasks, labelMasks, clipNorm, target, true);
  }

  private ClippedGradientSum run(INDArray[] features, INDArray[] labels, INDArray[] featureMasks,
      INDArray[] labelMasks, double clipNorm, INDArray target, boolean accumulate) {
    int n = checkBatch(features, labels, featureMasks, labelMasks, clipNorm, target);
    if (n == 0) {
      // An empty Poisson batch: the sum is zero (the DP step still adds its noise).
      if (!accumulate) {
        target.assign(0.0);
      }
      return new ClippedGradientSum(target, new double[0], 0, clipNorm, mode);
    }
    if (accumulate) {
      // DL4J's own backprop inside some layers writes into the graph's gradient view, which target may be.
      if (saved == null) {
        saved = PerExampleClipper.rowOutsideWorkspaces(dataType(), graph.numParams());
      }
      saved.assign(target);
    }
    INDArray[] previousInputs = graph.getInputs();
    INDArray[] previousMasks = graph.getInputMaskArrays();
    INDArray[] previousLabelMasks = graph.getLabelMaskArrays();
    boolean masked = featureMasks != null && Arrays.stream(featureMasks).anyMatch(m -> m != null);
    try (MemoryWorkspace ignored = Nd4j.getWorkspaceManager()
        .getAndActivateWorkspace(PerExampleClipper.WORKSPACE, WORKSPACE_ID)) {
      INDArray[] x = cast(features);
      INDArray[] fm = masked ? cast(featureMasks) : null;
      INDArray[] lm = labelMasks == null ? null : cast(labelMasks);
      if (readsNetworkInputs) {
        graph.setInputs(x);
      }
      if (readsNetworkInputs || masked) {
        // DL4J's time-series vertices (LastTimeStepVertex) read the network's masks; its layers keep theirs.
        graph.setLayerMaskArrays(fm, lm);
      }
      INDArray[] activations = forward(x, fm, n);
      backward(activations, cast(labels), lm, n);
      ClippedGradientSum result = clipAndWrite(n, clipNorm, target);
      if (accumulate) {
        target.addi(saved);
      }
      return result;
    } finally {
      if (readsNetworkInputs) {
        graph.setInputs(previousInputs);
      }
      if (readsNetworkInputs || masked) {
        graph.setLayerMaskArrays(previousMasks, previousLabelMasks);
      }
    }
  }

  private int checkBatch(INDArray[] features, INDArray[] labels, INDArray[] featureMasks, INDArray[] labelMasks,
      double clipNorm, INDArray target) {
    checkArgument(clipNorm > 0 && Double.isFinite(clipNorm), "clipNorm must be finite and > 0, was %s", clipNorm);
    int inputs = graph.getConfiguration().getNetworkInputs().size();
    int outputs = graph.getConfiguration().getNetworkOutputs().size();
    checkArgument(features != null && features.length == inputs,
        "features must hold one array per network input (%s), was %s", inputs,
        features == null ? null : features.length);
    checkArgument(labels != null && labels.length == outputs,
        "labels must hold one array per network output (%s), was %s", outputs, labels == null ? null : labels.length);
    checkArgument(featureMasks == null || featureMasks.length == inputs,
        "featureMasks must be null or hold one entry per network input (%s), was %s", inputs,
        featureMasks == null ? null : featureMasks.length);
    checkArgument(labelMasks == null || labelMasks.length == outputs,
        "labelMasks must be null or hold one entry per network output (%s), was %s", outputs,
        labelMasks == null ? null : labelMasks.length);
    checkArgument(target != null && target.rank() == 2 && target.size(0) == 1 && target.size(1) == graph.numParams(),
        "target must be a row vector [1, %s], was %s", graph.numParams(),
        target == null ? null : Arrays.toString(target.shape()));
    long n = features[0].size(0);
    for (INDArray a : concat(features, labels)) {
      checkArgument(a != null && a.size(0) == n,
          "every feature and label array must have %s examples (rows), was %s", n,
          a == null ? null : Arrays.toString(a.shape()));
    }
    return (int) n;
  }

  private static List<INDArray> concat(INDArray[] a, INDArray[] b) {
    List<INDArray> all = new ArrayList<>(Arrays.asList(a));
    all.addAll(Arrays.asList(b));
    return all;
  }

  private INDArray[] forward(INDArray[] features, INDArray[] featureMasks, int n) {
    LayerWorkspaceMgr workspaces = LayerWorkspaceMgr.noWorkspaces();
    INDArray[] activations = new INDArray[vertexCount];
    List<Pair<INDArray, MaskState>> masks = new ArrayList<>(Collections.nCopies(vertexCount, null));
    for (Node node : nodes) {
      INDArray out;
      if (featureMasks != null) {
        propagateMask(node, featureMasks, masks, n);
      } else if (node.rule != null) {
        node.rule.setInputMask(null);
      }
      if (node.networkInput >= 0) {
        out = features[node.networkInput];
      } else if (node.rule != null) {
        INDArray in = activations[node.inputs[0]];
        if (node.preprocessor != null) {
          in = node.preprocessor.preProcess(in, n, workspaces);
        }
        out = node.rule.forward(node.copyInput ? in.dup() : in);
      } else if (node.preprocessor != null) {
        out = node.preprocessor.preProcess(activations[node.inputs[0]], n, workspaces);
      } else {
        INDArray[] in = new INDArray[node.inputs.length];
        for (int j = 0; j < in.length; j++) {
          in[j] = activations[node.inputs[j]];
        }
        node.vertex.setInputs(in);
        out = node.vertex.doForward(true, workspaces);
      }
      if (out != null && out.size(0) != n) {
        throw new IllegalStateException("vertex '" + node.vertex.getVertexName() + "' turned " + n + " examples into "
            + out.size(0) + " rows: its rows are no longer examples, so per-example clipping cannot use it");
      }
      activations[node.index] = out;
    }
    return activations;
  }

  /**
   * The feature masks as DL4J's {@code ComputationGraph.setLayerMaskArrays} propagates them in topological order;
   * a layer's rule gets the mask of its input (after the layer's preprocessor).
   */
  private static void propagateMask(Node node, INDArray[] featureMasks, List<Pair<INDArray, MaskState>> masks, int n) {
    if (node.networkInput >= 0) {
      masks.set(node.index, new Pair<>(featureMasks[node.networkInput], MaskState.Active));
      return;
    }
    INDArray[] in = null;
    MaskState state = null;
    for (int j = 0; j < node.inputs.length; j++) {
      Pair<INDArray, MaskState> p = masks.get(node.inputs[j]);
      if (p != null) {
        in = in == null ? new INDArray[node.inputs.length] : in;
        in[j] = p.getFirst();
        state = state == null || state == MaskState.Passthrough ? p.getSecond() : state;
      }
    }
    if (node.rule != null) {
      INDArray layerMask = in == null ? null : in[0];
      if (layerMask != null && node.preprocessor != null) {
        Pair<INDArray, MaskState> p = node.preprocessor.feedForwardMaskArray(layerMask, state, n);
        layerMask = p == null ? null : p.getFirst();
      }
      node.rule.setInputMask(layerMask);
    }
    masks.set(node.index, node.vertex.feedForwardMaskArrays(in, state, n));
  }

  private void backward(INDArray[] activations, INDArray[] labels, INDArray[] labelMasks, int n) {
    LayerWorkspaceMgr workspaces = LayerWorkspaceMgr.noWorkspaces();
    INDArray[] errors = new INDArray[vertexCount];
    Set<INDArray> stored = Collections.newSetFromMap(new IdentityHashMap<>());
    for (int k = nodes.size() - 1; k >= 0; k--) {
      Node node = nodes.get(k);
      if (node.networkInput >= 0 || !node.needsError) {
        continue;
      }
      boolean needInputError = node.passesErrors && Arrays.stream(node.inputs).anyMatch(i -> needsError(i));
      INDArray error = errors[node.index];
      if (node.rule != null) {
        INDArray inputError;
        if (node.networkOutput >= 0) {
          INDArray mask = labelMasks == null ? null : labelMasks[node.networkOutput];
          inputError = node.rule.backwardFromLabels(labels[node.networkOutput], mask, needInputError);
        } else {
          // No error reached this layer (only frozen layers without backprop consume it): its gradient is zero.
          inputError = node.rule.backward(error != null ? error : activations[node.index].ulike().assign(0.0),
              needInputError);
        }
        if (inputError != null && needInputError) {
          if (node.preprocessor != null) {
            inputError = node.preprocessor.backprop(inputError, n, workspaces);
          }
          accumulate(errors, stored, node.inputs[0], inputError);
        }
      } else if (error != null && node.preprocessor != null) {
        if (node.passesErrors && needInputError) {
          accumulate(errors, stored, node.inputs[0], node.preprocessor.backprop(error, n, workspaces));
        }
      } else if (error != null && node.passesErrors) {
        node.vertex.setEpsilon(error);
        INDArray[] inputErrors = node.vertex.doBackward(false, workspaces).getSecond();
        for (int j = 0; j < node.inputs.length; j++) {
          if (inputErrors[j] != null && needsError(node.inputs[j])) {
            accumulate(errors, stored, node.inputs[j], inputErrors[j]);
          }
        }
      }
    }
  }

  /** Whether the vertex's output error is needed (some trainable layer at or above it). */
  private boolean needsError(int vertexIndex) {
    return nodes.get(positions[vertexIndex]).needsError;
  }

  /** A vertex read by several consumers gets the sum of their errors (the chain rule over its fan-out). */
  private static void accumulate(INDArray[] errors, Set<INDArray> stored, int vertex, INDArray error) {
    if (errors[vertex] == null) {
      // Layers may change their output error in place; never let two vertices hold the same array.
      INDArray own = stored.contains(error) ? error.dup() : error;
      stored.add(own);
      errors[vertex] = own;
    } else {
      errors[vertex].addi(error);
    }
  }

  private ClippedGradientSum clipAndWrite(int n, double clipNorm, INDArray target) {
    List<INDArray> layerSq = new ArrayList<>();
    for (Node node : nodes) {
      if (node.trainable()) {
        layerSq.add(node.rule.squaredNorms());
      }
    }
    ClipFactors factors = ClipFactors.compute(layerSq, n, dataType(), mode, clipNorm);
    int p = 0;
    for (Node node : nodes) {
      if (node.size == 0) {
        continue;
      }
      INDArray slice = target.get(NDArrayIndex.all(), NDArrayIndex.interval(node.offset, node.offset + node.size));
      if (node.trainable()) {
        Layer layer = node.vertex.getLayer();
        Map<String, INDArray> views = GradientViews.of(layer, slice);
        node.rule.writeScaledSum(factors.scale(p++), views);
      } else {
        slice.assign(0.0);    // frozen parameters: no gradient
      }
    }
    return factors.result(target, clipNorm, mode);
  }

  private INDArray[] cast(INDArray[] arrays) {
    INDArray[] out = new INDArray[arrays.length];
    for (int i = 0; i < arrays.length; i++) {
      out[i] = arrays[i] == null ? null : arrays[i].castTo(dataType());
    }
    return out;
  }

  private DataType dataType() {
    return graph.params().dataType();
  }
}
