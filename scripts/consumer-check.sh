#!/usr/bin/env bash
# Consumer check (issue 16): dp4j must work in a user's project that also has DL4J's UI on the class path.
#
# deeplearning4j-ui-model drags in mapdb, whose Guava range [15.0,19.20) makes Maven resolve an old Guava (19.0)
# for the whole application; without relocation dp4j then fails with NoSuchMethodError on
# Preconditions.checkArgument(boolean, String, double), an overload Guava added in 20.0.
# dp4j-core ships its own relocated copy of the Guava classes it uses, so the user's Guava cannot break it.
#
# What it does:
#   1. installs dp4j-parent, dp4j-core and dp4j-listeners (no tests run) into the local repository;
#   2. generates a throw-away consumer Maven project in a temp folder depending on dp4j-core, nd4j-native and
#      deeplearning4j-ui-model (nothing else, no exclusions), whose main builds DpSgd with its builder and runs one
#      DpSgdStep on a 2-layer MLP;
#   3. checks that the consumer really resolves a Guava without the new overloads (otherwise the check would prove
#      nothing), runs the main and requires it to print CONSUMER-OK.
#
# Usage: scripts/consumer-check.sh [extra maven flags, e.g. -o]
#   MAVEN_REPO_LOCAL=/some/repo scripts/consumer-check.sh   # install into another local repository instead of ~/.m2
# Exit status 0 when the consumer runs, non-zero otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

MVN=(mvn -B "$@")
if [[ -n "${MAVEN_REPO_LOCAL:-}" ]]; then
  MVN+=("-Dmaven.repo.local=${MAVEN_REPO_LOCAL}")
fi
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"

VERSION=$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' pom.xml | head -1)
DL4J_VERSION=$(sed -n 's:.*<dl4j.version>\(.*\)</dl4j.version>.*:\1:p' pom.xml | head -1)

echo "consumer-check: installing dp4j ${VERSION} (core, listeners) without running tests"
"${MVN[@]}" -q -DskipTests -pl dp4j-core,dp4j-listeners -am install

# The library jars must not refer to com.google.common any more (jdeps lists every class they reference).
for m in dp4j-core dp4j-listeners; do
  if jdeps -verbose:class "$m/target/$m-$VERSION.jar" 2>/dev/null | grep -q -- '-> com\.google\.common\.'; then
    echo "consumer-check: FAILED ($m-$VERSION.jar still refers to com.google.common: Guava is not relocated)"
    exit 1
  fi
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/dp4j-consumer.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/src/main/java/consumer"

cat > "$WORK/pom.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 http://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId>
  <artifactId>dp4j-consumer</artifactId>
  <version>1</version>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
    <dependency>
      <groupId>org.dp4j</groupId>
      <artifactId>dp4j-core</artifactId>
      <version>${VERSION}</version>
    </dependency>
    <dependency>
      <groupId>org.nd4j</groupId>
      <artifactId>nd4j-native</artifactId>
      <version>${DL4J_VERSION}</version>
    </dependency>
    <dependency>
      <groupId>org.deeplearning4j</groupId>
      <artifactId>deeplearning4j-ui-model</artifactId>
      <version>${DL4J_VERSION}</version>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-compiler-plugin</artifactId>
        <version>3.13.0</version>
      </plugin>
    </plugins>
  </build>
</project>
EOF

cat > "$WORK/src/main/java/consumer/ConsumerCheck.java" <<'EOF'
package consumer;

import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.dp4j.updater.DpSgd;
import org.dp4j.updater.DpSgdStep;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.LossFunctions;

public final class ConsumerCheck {
  public static void main(String[] args) throws Exception {
    // The hazard must be present, or this check proves nothing: the application's Guava lacks the
    // checkArgument(boolean, String, double) overload that dp4j's code calls.
    Class<?> pre = Class.forName("com.google.common.base.Preconditions");
    try {
      pre.getMethod("checkArgument", boolean.class, String.class, double.class);
      throw new AssertionError("vacuous check: the consumer's Guava ("
          + pre.getProtectionDomain().getCodeSource().getLocation() + ") has the new overloads");
    } catch (NoSuchMethodException expected) {
      System.out.println("consumer Guava without the overloads: " + pre.getProtectionDomain().getCodeSource().getLocation());
    }

    DpSgd dp = DpSgd.builder().clipNorm(1.0).noiseMultiplier(1.1).expectedBatchSize(8)
        .baseUpdater(new Sgd(0.1)).build();
    MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder().seed(1).dataType(DataType.DOUBLE)
        .updater(dp).list()
        .layer(new DenseLayer.Builder().nIn(4).nOut(8).activation(Activation.TANH).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nIn(8).nOut(3)
            .activation(Activation.SOFTMAX).build())
        .build();
    MultiLayerNetwork net = new MultiLayerNetwork(conf);
    net.init();
    INDArray before = net.params().dup();
    INDArray x = Nd4j.rand(DataType.DOUBLE, 8, 4);
    INDArray y = Nd4j.zeros(DataType.DOUBLE, 8, 3);
    for (int i = 0; i < 8; i++) {
      y.putScalar(i, i % 3, 1.0);
    }
    DpSgdStep.of(net).apply(x, y);
    double moved = net.params().sub(before).norm2Number().doubleValue();
    if (!(moved > 0 && Double.isFinite(moved))) {
      throw new AssertionError("the DP-SGD step did not move the parameters finitely: " + moved);
    }
    System.out.println("CONSUMER-OK " + dp + " moved the parameters by " + moved);
  }
}
EOF

cd "$WORK"
echo "consumer-check: Guava the consumer resolves:"
"${MVN[@]}" dependency:tree -Dincludes=com.google.guava:guava | grep 'com.google.guava:guava:jar' || true
"${MVN[@]}" -q compile dependency:build-classpath -Dmdep.outputFile=cp.txt
OUT=$(java -cp "target/classes:$(cat cp.txt)" consumer.ConsumerCheck 2>&1) || { echo "$OUT"; echo "consumer-check: FAILED"; exit 1; }
echo "$OUT" | grep -E 'consumer Guava|CONSUMER-OK'
echo "$OUT" | grep -q '^CONSUMER-OK' || { echo "$OUT"; echo "consumer-check: FAILED (no CONSUMER-OK)"; exit 1; }
echo "consumer-check: PASSED"
