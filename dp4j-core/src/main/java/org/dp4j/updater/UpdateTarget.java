package org.dp4j.updater;

import java.util.Collection;
import java.util.OptionalDouble;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * What {@link DpSgdStep} needs from a DL4J model besides its {@link ClippableModel}: the iteration and epoch
 * counters, the listeners, and the model's own updater (the {@link DpSgd}'s base updater, applied to an already
 * private gradient with mini-batch size 1).
 */
interface UpdateTarget {
  Model model();

  int iteration();

  int epoch();

  /** Turns the private gradient into the update in place (η·gradient for plain SGD, else DL4J's updater). */
  void toUpdate(INDArray gradient, int iteration, int epoch);

  void setIterationCount(int iteration);

  Collection<TrainingListener> listeners();

  static UpdateTarget of(MultiLayerNetwork net, DpSgd config) {
    InPlaceSgd inPlace = new InPlaceSgd(net, config);
    return new UpdateTarget() {
      @Override
      public Model model() {
        return net;
      }

      @Override
      public int iteration() {
        return net.getIterationCount();
      }

      @Override
      public Collection<TrainingListener> listeners() {
        return net.getListeners();
      }

      @Override
      public int epoch() {
        return net.getEpochCount();
      }

      @Override
      public void toUpdate(INDArray gradient, int iteration, int epoch) {
        OptionalDouble rate = inPlace.rate(iteration, epoch);
        if (rate.isPresent()) {
          // What DL4J's Sgd updater does (update = η·gradient), without its per-block bookkeeping.
          gradient.muli(rate.getAsDouble());
        } else {
          // Mini-batch size 1: the gradient is already divided by the expected batch size.
          DpSgdUpdater.applyPrivatised(() -> net.getUpdater(true).update(net, new DefaultGradient(gradient),
              iteration, epoch, 1, LayerWorkspaceMgr.noWorkspaces()));
        }
      }

      @Override
      public void setIterationCount(int iteration) {
        net.getLayerWiseConfigurations().setIterationCount(iteration);
      }
    };
  }

  static UpdateTarget of(ComputationGraph graph) {
    return new UpdateTarget() {
      @Override
      public Model model() {
        return graph;
      }

      @Override
      public int iteration() {
        return graph.getIterationCount();
      }

      @Override
      public Collection<TrainingListener> listeners() {
        return graph.getListeners();
      }

      @Override
      public int epoch() {
        return graph.getEpochCount();
      }

      @Override
      public void toUpdate(INDArray gradient, int iteration, int epoch) {
        DpSgdUpdater.applyPrivatised(() -> graph.getUpdater(true).update(new DefaultGradient(gradient), iteration,
            epoch, 1, LayerWorkspaceMgr.noWorkspaces()));
      }

      @Override
      public void setIterationCount(int iteration) {
        graph.getConfiguration().setIterationCount(iteration);
      }
    };
  }
}
