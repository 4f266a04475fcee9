package org.dp4j.clipping;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.api.MaskState;
import org.deeplearning4j.nn.api.layers.IOutputLayer;
import org.deeplearning4j.nn.conf.GradientNormalization;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.INDArrayIndex;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.slf4j.LoggerFactory;

/**
 * The generic exact rule for a parameterised layer without a vectorised one: example i's gradient is DL4J's own
 * {@code backpropGradient} of the layer on example i alone (its input row, output error row and mask row), so it is
 * exact for any layer whose forward pass keeps the examples of a batch independent. The batch forward pass runs once
 * on the whole batch (the layers above need its output); the backward pass re-runs forward and backward one example
 * at a time, which yields g_i and example i's input error together. Each example's pass runs in a workspace reused
 * by the next, and the per-example gradients are kept ([n, P]) only while n·P stays under a bound; above it only
 * the norms are kept and {@link #writeScaledSum} repeats the per-example passes, so memory stays bounded.
 *
 * <p>Each per-example output is compared with the same example's row of the batch output: a layer that mixes the
 * examples of a batch (batch statistics) is caught there instead of producing wrong norms. Dropout and weight noise
 * (DropConnect) inside the layer would draw other randomness in the per-example passes than in the batch pass, so
 * they are refused (a {@code DropoutLayer} before the layer works). The path is as exact as DL4J's own backprop of
 * the layer (docs/dl4j-internals.md#generic-per-example-path).
 */
final class GenericLayerGradients implements PerExampleLayer {
  /** Per-example gradients are kept when n·P is at most this many elements (64 MB in float), else recomputed. */
  static final long STORE_ELEMENTS = 1L << 24;
  private static final String WORKSPACE_ID = "DP4J_GENERIC_PER_EXAMPLE";
  private static final Set<Class<?>> NOTIFIED = ConcurrentHashMap.newKeySet();

  private final Layer layer;
  private final String where;
  private final boolean output;
  private final boolean hasParams;
  private final long storeElements;
  private INDArray mask;
  private INDArray input;
  private INDArray batchOutput;
  private INDArray outputError;
  private INDArray labels;
  private INDArray labelMask;
  private INDArray squaredNorms;
  private Map<String, INDArray> perExample;   // key -> [n, size of that parameter]; null when recomputed
  private final Map<String, Character> orders = new ConcurrentHashMap<>();   // key -> order its rows are read in

  private GenericLayerGradients(Layer layer, String where, long storeElements) {
    this.layer = layer;
    this.where = where;
    this.output = layer instanceof IOutputLayer;
    this.hasParams = layer.numParams() > 0;
    this.storeElements = storeElements;
  }

  /**
   * The generic rule of {@code layer}, after checking that its passes are deterministic; logs once per layer class
   * per JVM that the layer takes this slower path.
   *
   * @param where how refusals name the layer
   * @param storeElements the largest n·P for which per-example gradients are kept rather than recomputed
   */
  static GenericLayerGradients of(Layer layer, String where, long storeElements) {
    checkArgument(storeElements >= 0, "storeElements must be >= 0, was %s", storeElements);
    checkDeterministic(layer.conf().getLayer(), where);
    Class<?> type = layer.conf().getLayer().getClass();
    if (layer.numParams() > 0 && NOTIFIED.add(type)) {
      LoggerFactory.getLogger(GenericLayerGradients.class).warn("{}: no vectorised per-example rule for {}, so its "
          + "per-example gradients come from DL4J's own backprop one example at a time: exact, but one forward and "
          + "one backward pass of the layer per example with each example's gradient materialised, several times "
          + "(small layers) to tens of times (layers with many parameters) the cost of a vectorised rule; register "
          + "a rule with LayerRuleRegistry to speed it up. Shown once per layer type.", where, type.getSimpleName());
    }
    return new GenericLayerGradients(layer, where, storeElements);
  }

  /** As {@link #of(Layer, String, long)}, naming the layer by its configuration class. */
  static GenericLayerGradients of(Layer layer, long storeElements) {
    return of(layer, layer.conf().getLayer().getClass().getSimpleName(), storeElements);
  }

  /** Refuses randomness inside the layer or any layer it wraps (it would differ between the passes). */
  private static void checkDeterministic(org.deeplearning4j.nn.conf.layers.Layer outer, String where) {
    for (org.deeplearning4j.nn.conf.layers.Layer conf : NestedLayers.of(outer)) {
      checkArgument(conf.getIDropout() == null, "%s: dropout inside %s is not supported by per-example clipping; "
          + "put a DropoutLayer before it instead", where, conf.getClass().getSimpleName());
      if (conf instanceof BaseLayer) {
        BaseLayer base = (BaseLayer) conf;
        checkArgument(base.getWeightNoise() == null, "%s: weight noise (DropConnect) inside %s is not supported by "
            + "per-example clipping; use a DropoutLayer instead", where, conf.getClass().getSimpleName());
        GradientNormalization normalization = base.getGradientNormalization();
        checkArgument(normalization == null || normalization == GradientNormalization.None,
            "%s: gradientNormalization %s of %s acts on the batch gradient, not per example; remove it "
                + "(per-example clipping already bounds every gradient)", where, normalization,
            conf.getClass().getSimpleName());
      }
    }
  }

  @Override
  public void setInputMask(INDArray mask) {
    this.mask = mask;
  }

  @Override
  public INDArray forward(INDArray in) {
    input = in;
    if (output) {
      return null;    // the loss starts the backward pass; nobody reads an output layer's activations here
    }
    setMask(mask, (int) in.size(0));
    // Copies: the layers above keep (and may change in place) their input until the clipped sum is written, while
    // the per-example passes below re-run this layer, and the independence check needs the untouched batch output.
    INDArray out = layer.activate(in, true, LayerWorkspaceMgr.noWorkspaces()).dup();
    batchOutput = out.dup();
    return out;
  }

  @Override
  public INDArray backward(INDArray error, boolean needInputError) {
    checkArgument(!output, "%s is an output layer", where);
    outputError = error;
    return perExamplePasses(needInputError);
  }

  @Override
  public INDArray backwardFromLabels(INDArray labels, INDArray labelMask, boolean needInputError) {
    checkArgument(output, "%s is not an output layer", where);
    this.labels = labels;
    // As DL4J's MultiLayerNetwork: the label mask, else the feature mask carried up to the output layer.
    this.labelMask = labelMask != null ? labelMask : mask;
    if (!hasParams) {
      // A loss layer's input error is already one row per example (the loss is not averaged over the batch).
      return needInputError ? outputBackprop(input, labels, this.labelMask).getSecond() : null;
    }
    return perExamplePasses(needInputError);
  }

  @Override
  public boolean isOutput() {
    return output;
  }

  @Override
  public boolean hasParams() {
    return hasParams;
  }

  @Override
  public INDArray squaredNorms() {
    return squaredNorms;
  }

  @Override
  public void writeScaledSum(INDArray scale, Map<String, INDArray> gradientViews) {
    Map<String, INDArray> sums = new LinkedHashMap<>();
    if (perExample != null) {
      perExample.forEach((key, rows) -> sums.put(key, scale.transpose().mmul(rows)));
    } else {
      // The per-example gradients were not kept: the passes run again, each adding scale_i·g_i.
      perParameter(1).forEach(sums::put);
      for (long i = 0; i < input.size(0); i++) {
        try (MemoryWorkspace ignored = Nd4j.getWorkspaceManager()
            .getAndActivateWorkspace(PerExampleClipper.WORKSPACE, WORKSPACE_ID)) {
          double c = scale.getDouble(i, 0);
          example(i).getFirst().gradientForVariable().forEach((key, g) -> sums.get(key).addi(flat(key, g).mul(c)));
        }
      }
      layer.clear();
    }
    for (Map.Entry<String, INDArray> view : gradientViews.entrySet()) {
      view.getValue().assign(sums.get(view.getKey()).reshape(order(view.getKey()), view.getValue().shape()));
    }
  }

  /** One zero array [rows, size] per parameter of the layer, in the currently open workspace. */
  private Map<String, INDArray> perParameter(long rows) {
    Map<String, INDArray> arrays = new LinkedHashMap<>();
    layer.paramTable().forEach((key, p) -> arrays.put(key, Nd4j.zeros(p.dataType(), rows, p.length())));
    return arrays;
  }

  /** Forward and backward on each example alone: its gradient's squared norm, its input error, maybe g_i. */
  private INDArray perExamplePasses(boolean needInputError) {
    long n = input.size(0);
    DataType type = input.dataType();
    INDArray inputError = needInputError ? Nd4j.create(type, input.shape()) : null;
    squaredNorms = hasParams ? Nd4j.create(type, n, 1) : null;
    perExample = hasParams && n * layer.numParams() <= storeElements ? perParameter(n) : null;
    for (long i = 0; i < n; i++) {
      try (MemoryWorkspace ignored = Nd4j.getWorkspaceManager()
          .getAndActivateWorkspace(PerExampleClipper.WORKSPACE, WORKSPACE_ID)) {
        Pair<Gradient, INDArray> result = example(i);
        if (needInputError) {
          inputError.get(rowIndex(inputError, i)).assign(result.getSecond());
        }
        if (hasParams) {
          record(i, result.getFirst().gradientForVariable());
        }
      }
    }
    // The layer now holds arrays of the per-example workspace; drop them.
    layer.clear();
    return inputError;
  }

  private void record(long i, Map<String, INDArray> gradient) {
    double sq = 0;
    for (Map.Entry<String, INDArray> e : gradient.entrySet()) {
      double norm = e.getValue().norm2Number().doubleValue();
      sq += norm * norm;
      if (perExample != null) {
        perExample.get(e.getKey()).get(NDArrayIndex.interval(i, i + 1), NDArrayIndex.all())
            .assign(flat(e.getKey(), e.getValue()));
      }
    }
    squaredNorms.putScalar(i, 0, sq);
  }

  /** DL4J's forward and backward pass of the layer on example i alone. */
  private Pair<Gradient, INDArray> example(long i) {
    INDArray x = row(input, i);
    if (output) {
      return outputBackprop(x, row(labels, i), row(labelMask, i));
    }
    setMask(row(mask, i), 1);
    INDArray out = layer.activate(x, true, LayerWorkspaceMgr.noWorkspaces());
    checkIndependent(out, i);
    return layer.backpropGradient(row(outputError, i), LayerWorkspaceMgr.noWorkspaces());
  }

  private Pair<Gradient, INDArray> outputBackprop(INDArray x, INDArray y, INDArray m) {
    layer.setInput(x, LayerWorkspaceMgr.noWorkspaces());
    ((IOutputLayer) layer).setLabels(y);
    layer.setMaskArray(m);
    return layer.backpropGradient(null, LayerWorkspaceMgr.noWorkspaces());
  }

  /** As DL4J's MultiLayerNetwork sets a feature mask on a layer (and clears it with setMaskArray). */
  private void setMask(INDArray m, int n) {
    if (m == null) {
      layer.setMaskArray(null);
    } else {
      layer.feedForwardMaskArray(m, MaskState.Active, n);
    }
  }

  /**
   * Example i's output alone must equal its row of the batch output (up to rounding): otherwise the layer mixes
   * the examples of a batch and per-example gradients do not exist.
   */
  private void checkIndependent(INDArray alone, long i) {
    INDArray inBatch = batchOutput.get(rowIndex(batchOutput, i));
    boolean same = Arrays.equals(alone.shape(), inBatch.shape());
    if (same) {
      double scale = Math.max(1.0, inBatch.amaxNumber().doubleValue());
      double tolerance = alone.dataType() == DataType.DOUBLE ? 1e-8 : 1e-3;
      same = alone.sub(inBatch).amaxNumber().doubleValue() <= tolerance * scale;
    }
    if (!same) {
      throw new IllegalStateException(where + ": example " + i + "'s output depends on the other examples of the "
          + "batch, so per-example gradients (and DP-SGD's sensitivity bound) do not exist for this layer; replace "
          + "it with a layer that acts on each example separately (e.g. layer normalisation instead of batch "
          + "statistics)");
    }
  }

  /** Row i of {@code a} (first dimension kept), copied: DL4J's layers may change their inputs in place. */
  private static INDArray row(INDArray a, long i) {
    return a == null ? null : a.get(rowIndex(a, i)).dup();
  }

  private static INDArrayIndex[] rowIndex(INDArray a, long i) {
    List<INDArrayIndex> index = new ArrayList<>();
    index.add(NDArrayIndex.interval(i, i + 1));
    for (int d = 1; d < a.rank(); d++) {
      index.add(NDArrayIndex.all());
    }
    return index.toArray(new INDArrayIndex[0]);
  }

  /**
   * A parameter's gradient as a row [1, length], read in the parameter's own storage order (a view, no copy, for the
   * contiguous gradient views DL4J hands out); {@link #writeScaledSum} reshapes the sums back in the same order.
   */
  private INDArray flat(String key, INDArray g) {
    return g.reshape(orders.computeIfAbsent(key, k -> g.ordering()), 1, g.length());
  }

  private char order(String key) {
    return orders.getOrDefault(key, 'c');
  }
}
