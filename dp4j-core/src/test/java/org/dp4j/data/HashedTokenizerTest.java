package org.dp4j.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.dataset.DataSet;

/** The hashed tokeniser: tokens, data-independent buckets (checked against an independent MurmurHash3), masks. */
class HashedTokenizerTest {
  private final HashedTokenizer tokenizer = new HashedTokenizer(4096, 5);

  @Test
  void lowerCaseWordTokens() {
    assertThat(HashedTokenizer.tokens("Hello, WORLD!  42x -- München\tend"))
        .containsExactly("hello", "world", "42x", "münchen", "end");
    assertThat(HashedTokenizer.tokens(" ,;! ")).isEmpty();
  }

  @Test
  void bucketsMatchAnIndependentMurmurHash3() {
    // 1 + floorMod(murmur3_x86_32(utf8(token), seed 0) as signed int, 4095), from a separate python3
    // implementation of MurmurHash3 (which gives the published 613153351 for "hello").
    assertThat(tokenizer.bucket("hello")).isEqualTo(812);
    assertThat(tokenizer.bucket("offer")).isEqualTo(2148);
    assertThat(tokenizer.bucket("viagra")).isEqualTo(2332);
    assertThat(tokenizer.bucket("münchen")).isEqualTo(1684);
  }

  @Test
  void aTokenGetsTheSameIdWhateverTheCorpus() {
    DataSet a = tokenizer.toDataSet(List.of("offer now", "meeting notes"), new boolean[] {true, false});
    DataSet b = new HashedTokenizer(4096, 5).toDataSet(List.of("the quarterly report", "an offer", "x"),
        new boolean[] {false, true, true});
    assertThat(a.getFeatures().getInt(0, 0)).isEqualTo(b.getFeatures().getInt(1, 1))
        .isEqualTo(tokenizer.bucket("offer"));
    for (String token : List.of("a", "zzz", "0", "ünïcödé")) {
      assertThat(tokenizer.bucket(token)).isBetween(1, 4095);
    }
  }

  @Test
  void masksMarkTheRealTokensAndPaddingIsAtTheEnd() {
    DataSet ds = tokenizer.toDataSet(List.of("one two three", "a b c d e f g", "", "Solo"),
        new boolean[] {true, false, false, true});
    float[][] mask = ds.getFeaturesMaskArray().toFloatMatrix();
    assertThat(mask[0]).containsExactly(1, 1, 1, 0, 0);
    assertThat(mask[1]).containsExactly(1, 1, 1, 1, 1);     // truncated to the first 5 tokens
    assertThat(mask[2]).containsExactly(1, 0, 0, 0, 0);     // no token: one padding step, so a last step exists
    assertThat(mask[3]).containsExactly(1, 0, 0, 0, 0);
    float[][] x = ds.getFeatures().toFloatMatrix();
    assertThat(x[0]).containsExactly(tokenizer.bucket("one"), tokenizer.bucket("two"), tokenizer.bucket("three"),
        0, 0);
    assertThat(x[1][4]).isEqualTo(tokenizer.bucket("e"));
    assertThat(x[2]).containsOnly(0f);
    assertThat(ds.getLabels().toFloatMatrix()).isDeepEqualTo(new float[][] {{0, 1}, {1, 0}, {1, 0}, {0, 1}});
    assertThat(ds.getLabelsMaskArray()).isNull();
  }

  @Test
  void refusesBadSettings() {
    assertThatThrownBy(() -> new HashedTokenizer(1, 5)).hasMessageContaining("buckets must be >= 2, was 1");
    assertThatThrownBy(() -> new HashedTokenizer(8, 0)).hasMessageContaining("length must be >= 1, was 0");
    assertThatThrownBy(() -> tokenizer.toDataSet(List.of("a"), new boolean[2]))
        .hasMessageContaining("one entry per text");
  }
}
