package org.dp4j.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The default memory caps of dp4j train: applied when absent, user settings respected, relaunch can be disabled. */
class MemoryCapsTest {
  private static final String JAVA = "/opt/jdk/bin/java";
  private static final String CP = "dp4j.jar";
  private static final String[] TRAIN = {"train", "--dataset", "mnist", "--model", "mlp", "--epsilon", "3"};

  @Test
  void trainWithoutAHeapLimitIsRelaunchedWithTheCapsAndItsOwnOptions() {
    List<String> cmd = MemoryCaps.relaunchCommand(TRAIN, List.of("-Dfoo=bar", "-XX:+UseG1GC"), Map.of(), JAVA, CP)
        .orElseThrow();
    assertThat(cmd).containsExactly(JAVA, "-Xmx512m", "-Dorg.bytedeco.javacpp.maxbytes=512m",
        "-Dorg.bytedeco.javacpp.maxphysicalbytes=2g", "-Dfoo=bar", "-XX:+UseG1GC", "-cp", CP,
        "org.dp4j.samples.cli.Dp4jCommand", "train", "--dataset", "mnist", "--model", "mlp", "--epsilon", "3");
  }

  @Test
  void aHeapOptionGivenByTheUserMeansNoRelaunch() {
    for (String heap : List.of("-Xmx4g", "-Xms2g", "-XX:MaxHeapSize=1g", "-XX:MaxRAMPercentage=50",
        "-XX:MaxRAM=8g", "-XX:InitialHeapSize=1g")) {
      assertThat(MemoryCaps.relaunchCommand(TRAIN, List.of(heap), Map.of(), JAVA, CP)).as(heap).isEmpty();
    }
  }

  @Test
  void offHeapLimitsGivenByTheUserAreKeptNotDuplicated() {
    List<String> given = List.of("-Dorg.bytedeco.javacpp.maxBytes=2g", "-Dorg.bytedeco.javacpp.maxphysicalbytes=3g");
    List<String> cmd = MemoryCaps.relaunchCommand(TRAIN, given, Map.of(), JAVA, CP).orElseThrow();
    assertThat(cmd).contains("-Xmx512m", "-Dorg.bytedeco.javacpp.maxBytes=2g",
        "-Dorg.bytedeco.javacpp.maxphysicalbytes=3g");
    assertThat(cmd.stream().filter(o -> o.toLowerCase().startsWith("-dorg.bytedeco.javacpp.max"))).hasSize(2);
  }

  @Test
  void noRelaunchWhenDisabledForOtherCommandsForDpMbcdOrWithAnAgent() {
    assertThat(MemoryCaps.relaunchCommand(TRAIN, List.of(), Map.of("DP4J_NO_RELAUNCH", "1"), JAVA, CP)).isEmpty();
    assertThat(MemoryCaps.relaunchCommand(new String[] {"account", "sgm"}, List.of(), Map.of(), JAVA, CP)).isEmpty();
    assertThat(MemoryCaps.relaunchCommand(new String[0], List.of(), Map.of(), JAVA, CP)).isEmpty();
    assertThat(MemoryCaps.relaunchCommand(new String[] {"train", "--algorithm", "dp-mbcd"}, List.of(), Map.of(),
        JAVA, CP)).isEmpty();
    assertThat(MemoryCaps.relaunchCommand(new String[] {"train", "--algorithm=DP-MBCD"}, List.of(), Map.of(),
        JAVA, CP)).isEmpty();
    assertThat(MemoryCaps.relaunchCommand(TRAIN, List.of("-agentlib:jdwp=transport=dt_socket,server=y"), Map.of(),
        JAVA, CP)).isEmpty();
    assertThat(MemoryCaps.relaunchCommand(TRAIN, List.of("-javaagent:jacoco.jar"), Map.of(), JAVA, CP)).isEmpty();
  }

  @Test
  void theChildRunsWithTheCapsAndItsExitStatusIsPropagated() throws Exception {
    // A real child JVM: `train --epsilon -1` is refused (exit 2) after the child has started with the caps.
    java.nio.file.Path javaBin = java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> cmd = MemoryCaps.relaunchCommand(new String[] {"train", "--epsilon", "-1"}, List.of(), Map.of(),
        javaBin.toString(), System.getProperty("java.class.path")).orElseThrow();
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as(output).isEqualTo(2);
    assertThat(output).contains("--epsilon must be finite and > 0, was -1.0");
  }
}
