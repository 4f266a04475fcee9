package org.dp4j.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.List;
import org.junit.jupiter.api.Test;

class EmbeddedSparkTest {
  @Test
  void theTestJvmHasEveryJava17OptionTheLauncherDeclares() {
    // The parent POM's spark.test.argLine and EmbeddedSpark.JAVA_17_OPTIONS (used by the CLI's relaunch) are one list.
    List<String> jvm = ManagementFactory.getRuntimeMXBean().getInputArguments();
    assertThat(jvm).contains(EmbeddedSpark.JAVA_17_OPTIONS.split(" "));
  }

  @Test
  void aLocalContextBindsToLoopbackWithoutUiOrSpeculation() {
    var conf = SharedSpark.context().getConf();
    assertThat(conf.get("spark.driver.bindAddress")).isEqualTo("127.0.0.1");
    assertThat(conf.get("spark.ui.enabled")).isEqualTo("false");
    assertThat(conf.getBoolean("spark.speculation", true)).isFalse();
  }
}
