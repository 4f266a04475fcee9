package org.dp4j.samples.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Default memory caps of {@code dp4j train} (DP-SGD): a JVM started without a heap limit is relaunched once with
 * {@code -Xmx512m} and ND4J's off-heap memory (JavaCPP) capped at 512 MB (the whole process at 2 GB), so that the README's MLP run stays near
 * 1 GB resident instead of growing towards a quarter of the machine's memory for the heap plus as much again off-heap.
 *
 * <p>Why a relaunch: the JVM's default heap limit is a quarter of the RAM, and G1 grows the heap towards it while
 * ND4J allocates; JavaCPP's off-heap limit defaults to the heap limit, and off-heap arrays are released only when
 * the heap objects holding them are collected. Measured on the 784-256-10 MLP (15 epochs, 23 GB machine): 3.2 GB
 * resident and still growing by about 70 MB/s with the defaults, a plateau at 1.0 GB with {@code -Xmx512m}. The heap
 * limit cannot be set from inside a running JVM (nor from a jar's manifest), hence the child JVM.
 *
 * <p>Overrides: any heap option ({@code -Xmx}, {@code -Xms}, {@code -XX:MaxHeapSize}, {@code -XX:InitialHeapSize},
 * {@code -XX:MaxRAM}, {@code -XX:MaxRAMPercentage}) turns the relaunch off and JavaCPP's defaults follow that heap;
 * {@code -Dorg.bytedeco.javacpp.maxbytes} / {@code maxphysicalbytes} given by the user are kept; the environment
 * variable {@code DP4J_NO_RELAUNCH} (any value) turns the relaunch off. A JVM with an agent ({@code -agentlib},
 * {@code -javaagent}, a debugger) is not relaunched either (the agent would start twice). {@code --algorithm dp-mbcd}
 * is not capped: its auxiliary store grows with the training set and the widths (use {@code -Xmx}). {@code --spark}
 * appends {@link SparkTraining#JVM_OPTIONS} after the caps (the later options win); {@code --spark submit} is not
 * relaunched (spark-submit configured the JVM); nor is {@code --features} (ScatterNet
 * features of 60,000 images take about 1 GB).
 */
final class MemoryCaps {
  /** Environment variable that turns the relaunch off. */
  static final String NO_RELAUNCH = "DP4J_NO_RELAUNCH";
  static final String HEAP = "-Xmx512m";
  static final String MAX_BYTES = "org.bytedeco.javacpp.maxbytes";
  static final String MAX_PHYSICAL_BYTES = "org.bytedeco.javacpp.maxphysicalbytes";
  /** ND4J's arrays (JavaCPP {@code Pointer}s): above this, JavaCPP collects garbage, then refuses. */
  static final String MAX_BYTES_DEFAULT = "512m";
  /**
   * The whole process (heap + off-heap + the JVM's and libnd4j's own memory): above this, JavaCPP collects garbage
   * before it allocates, then refuses with an OutOfMemoryError. A backstop above what the caps above allow in
   * practice (MLP 1.1 GB, a CNN epoch on 60,000 images 1.6 GB at its peak), not the bound itself; JavaCPP's own
   * default for this heap would be 1.5 GB (3 x -Xmx), which the CNN exceeds transiently.
   */
  static final String MAX_PHYSICAL_BYTES_DEFAULT = "2g";
  private static final List<String> HEAP_OPTIONS =
      List.of("-Xmx", "-Xms", "-XX:MaxHeapSize=", "-XX:InitialHeapSize=", "-XX:MaxRAM=", "-XX:MaxRAMPercentage=");
  private static final List<String> AGENT_OPTIONS =
      List.of("-agentlib:", "-agentpath:", "-javaagent:", "-Xrunjdwp", "-Xdebug");

  private MemoryCaps() {}

  /**
   * The command that runs {@code args} again in a JVM with the default caps, or empty when this JVM should run
   * them itself (not {@code train}, DP-MBCD, a heap option given, an agent present, or {@code DP4J_NO_RELAUNCH}).
   *
   * @param jvmOptions this JVM's options ({@code RuntimeMXBean.getInputArguments()}), kept in the child
   * @param java the java executable of this JVM
   */
  static Optional<List<String>> relaunchCommand(String[] args, List<String> jvmOptions, Map<String, String> env,
      String java, String classPath) {
    if (args.length == 0 || !args[0].equals("train") || isDpMbcd(args) || hasFeatures(args)
        || env.containsKey(NO_RELAUNCH)
        || SparkTraining.submitted(args)   // spark-submit sized and configured this JVM; a child would lose it
        || jvmOptions.stream().anyMatch(o -> startsWithAny(o, HEAP_OPTIONS) || startsWithAny(o, AGENT_OPTIONS))) {
      return Optional.empty();
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(java);
    cmd.add(HEAP);
    addUnlessGiven(cmd, jvmOptions, MAX_BYTES, MAX_BYTES_DEFAULT);
    addUnlessGiven(cmd, jvmOptions, MAX_PHYSICAL_BYTES, MAX_PHYSICAL_BYTES_DEFAULT);
    if (SparkTraining.requested(args)) {
      cmd.addAll(SparkTraining.JVM_OPTIONS);   // later options win: Spark's larger caps and its Java 17 opens
    }
    cmd.addAll(jvmOptions);
    cmd.add("-cp");
    cmd.add(classPath);
    cmd.add(Dp4jCommand.class.getName());
    cmd.addAll(Arrays.asList(args));
    return Optional.of(cmd);
  }

  /**
   * Runs {@code args} in a child JVM with the default caps when {@link #relaunchCommand} says so, and returns its
   * exit status; empty when this JVM should run them itself. The child inherits standard input, output and error
   * and the environment (plus {@code DP4J_NO_RELAUNCH}); it is stopped if this JVM is stopped.
   */
  static Optional<Integer> relaunchIfUncapped(String[] args) {
    String java = ProcessHandle.current().info().command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    Optional<List<String>> cmd = relaunchCommand(args, ManagementFactory.getRuntimeMXBean().getInputArguments(),
        System.getenv(), java, System.getProperty("java.class.path"));
    if (cmd.isEmpty()) {
      return Optional.empty();
    }
    ProcessBuilder pb = new ProcessBuilder(cmd.get()).inheritIO();
    pb.environment().put(NO_RELAUNCH, "child of a capped relaunch");
    try {
      Process child = pb.start();
      Thread stop = new Thread(() -> {
        child.destroy();
        try {
          child.waitFor();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      Runtime.getRuntime().addShutdownHook(stop);
      int status = child.waitFor();
      try {
        Runtime.getRuntime().removeShutdownHook(stop);
      } catch (IllegalStateException e) {
        // this JVM is being stopped (SIGTERM): the hook has stopped the child, whose status is returned
      }
      return Optional.of(status);
    } catch (IOException e) {
      throw new UncheckedIOException("could not start " + cmd.get().get(0) + " with the default memory caps (set "
          + NO_RELAUNCH + "=1 or give -Xmx to run in this JVM): " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.of(1);
    }
  }

  /** {@code --features}: the cached features of a training set (about 1 GB for ScatterNet) exceed the caps. */
  private static boolean hasFeatures(String[] args) {
    return Arrays.stream(args).anyMatch(a -> a.equals("--features") || a.startsWith("--features="));
  }

  private static boolean isDpMbcd(String[] args) {
    for (int i = 1; i < args.length; i++) {
      if (args[i].equalsIgnoreCase("--algorithm=dp-mbcd")
          || (args[i].equals("--algorithm") && i + 1 < args.length && args[i + 1].equalsIgnoreCase("dp-mbcd"))) {
        return true;
      }
    }
    return false;
  }

  private static void addUnlessGiven(List<String> cmd, List<String> jvmOptions, String property, String value) {
    String given = ("-D" + property + "=").toLowerCase(Locale.ROOT);
    // JavaCPP also reads the camel-case spelling (org.bytedeco.javacpp.maxBytes).
    if (jvmOptions.stream().noneMatch(o -> o.toLowerCase(Locale.ROOT).startsWith(given))) {
      cmd.add("-D" + property + "=" + value);
    }
  }

  private static boolean startsWithAny(String option, List<String> prefixes) {
    return prefixes.stream().anyMatch(option::startsWith);
  }
}
