package org.dp4j.spark;

import org.dp4j.updater.ClippableModel;

/**
 * Each executor thread builds a network of the job's architecture once and reuses it for every step (DL4J networks
 * are not thread-safe, and an executor runs several tasks at once). A thread that meets another architecture builds
 * that one instead.
 */
final class ExecutorModels {
  private static final ThreadLocal<Cached> CACHE = new ThreadLocal<>();

  private record Cached(ModelSpec spec, ClippableModel model) {
  }

  private ExecutorModels() {
  }

  /** This thread's network of the spec's architecture, with the given parameters. */
  static ClippableModel at(ModelSpec spec, ParameterVector params) {
    Cached cached = CACHE.get();
    if (cached == null || !cached.spec().equals(spec)) {
      cached = new Cached(spec, spec.build());
      CACHE.set(cached);
    }
    params.copyInto(cached.model().model().params());
    return cached.model();
  }
}
