package org.dp4j.clipping;

import static org.dp4j.InvalidSettingException.checkArgument;

import java.util.Arrays;
import org.deeplearning4j.nn.conf.InputPreProcessor;
import org.deeplearning4j.nn.conf.graph.ElementWiseVertex;
import org.deeplearning4j.nn.conf.graph.FrozenVertex;
import org.deeplearning4j.nn.conf.graph.GraphVertex;
import org.deeplearning4j.nn.conf.graph.L2NormalizeVertex;
import org.deeplearning4j.nn.conf.graph.MergeVertex;
import org.deeplearning4j.nn.conf.graph.PreprocessorVertex;
import org.deeplearning4j.nn.conf.graph.ReshapeVertex;
import org.deeplearning4j.nn.conf.graph.ScaleVertex;
import org.deeplearning4j.nn.conf.graph.ShiftVertex;
import org.deeplearning4j.nn.conf.graph.StackVertex;
import org.deeplearning4j.nn.conf.graph.SubsetVertex;
import org.deeplearning4j.nn.conf.graph.UnstackVertex;
import org.deeplearning4j.nn.conf.graph.rnn.DuplicateToTimeSeriesVertex;
import org.deeplearning4j.nn.conf.graph.rnn.LastTimeStepVertex;
import org.dp4j.InvalidSettingException;

/**
 * Which parameter-free {@code ComputationGraph} vertices the graph clipper passes per-example errors through (with
 * DL4J's own {@code doBackward}), and the refusal for the others. A vertex is supported when row i of its output
 * depends only on row i of its inputs: then example i's error stays in row i, as the layer rules assume.
 */
final class VertexRules {
  static final String SUPPORTED = "MergeVertex (not along dimension 0), ElementWiseVertex, SubsetVertex, "
      + "PreprocessorVertex (CNN <-> dense), ScaleVertex, ShiftVertex, L2NormalizeVertex (not over dimension 0), "
      + "ReshapeVertex (first dimension -1), LastTimeStepVertex, DuplicateToTimeSeriesVertex, FrozenVertex of these";

  private VertexRules() {
  }

  /** Whether DL4J's implementation of this vertex reads the network's inputs or input masks directly. */
  static boolean readsNetworkInputs(GraphVertex conf) {
    GraphVertex c = unwrap(conf);
    return c instanceof LastTimeStepVertex || c instanceof DuplicateToTimeSeriesVertex;
  }

  /** The preprocessor of a {@code PreprocessorVertex} (also frozen), else null. */
  static InputPreProcessor preprocessor(GraphVertex conf) {
    GraphVertex c = unwrap(conf);
    return c instanceof PreprocessorVertex ? ((PreprocessorVertex) c).getPreProcessor() : null;
  }

  /** @throws IllegalArgumentException naming the vertex when it mixes examples or is not supported */
  static void check(GraphVertex conf, String name) {
    GraphVertex c = unwrap(conf);
    String where = "vertex '" + name + "' (" + c.getClass().getSimpleName() + ")";
    if (c instanceof StackVertex || c instanceof UnstackVertex) {
      throw new InvalidSettingException(where + ": stacking along dimension 0 puts several rows of one example "
          + "into the batch (they share the weights downstream), so a row is no longer an example and the "
          + "per-example rules would clip parts of examples; feed the branches through separate layers and a "
          + "MergeVertex instead");
    }
    if (c instanceof MergeVertex) {
      checkArgument(((MergeVertex) c).getMergeAxis() != 0,
          "%s: merging along dimension 0 concatenates examples; merge along dimension 1 (the default)", where);
    } else if (c instanceof L2NormalizeVertex) {
      int[] dims = ((L2NormalizeVertex) c).getDimension();
      checkArgument(dims == null || Arrays.stream(dims).noneMatch(d -> d == 0),
          "%s: normalising over dimension 0 mixes the examples of a batch; normalise over dimensions %s without 0",
          where, Arrays.toString(dims));
    } else if (c instanceof ReshapeVertex) {
      int[] shape = ((ReshapeVertex) c).getNewShape();
      checkArgument(shape.length > 0 && shape[0] == -1,
          "%s: newShape %s must keep one example per row; use -1 as its first dimension", where,
          Arrays.toString(shape));
    } else if (c instanceof PreprocessorVertex) {
      LayerRules.checkPreprocessor(((PreprocessorVertex) c).getPreProcessor(), where + ": preprocessor");
    } else if (!(c instanceof ElementWiseVertex || c instanceof SubsetVertex || c instanceof ScaleVertex
        || c instanceof ShiftVertex || c instanceof LastTimeStepVertex || c instanceof DuplicateToTimeSeriesVertex)) {
      throw new InvalidSettingException(where + ": per-example clipping does not support this vertex type; "
          + "supported: " + SUPPORTED);
    }
  }

  private static GraphVertex unwrap(GraphVertex conf) {
    return conf instanceof FrozenVertex ? ((FrozenVertex) conf).getUnderlying() : conf;
  }
}
