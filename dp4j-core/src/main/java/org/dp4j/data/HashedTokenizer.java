package org.dp4j.data;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import com.google.common.hash.HashFunction;
import com.google.common.hash.Hashing;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;

/**
 * A data-independent tokeniser for private text models: lower-case word tokens (maximal runs of Unicode letters or
 * digits, {@link Locale#ROOT} lower-casing) are mapped by feature hashing to one of {@code buckets - 1} ids
 * {@code 1 + (murmur3_32(token, seed 0) mod (buckets - 1))}; id 0 is padding. Sequences keep their first
 * {@code length} tokens and are padded at the end.
 *
 * <p>Why hashing and not a vocabulary: a vocabulary built from the training texts (the most frequent words, say) is
 * itself a function of the private data and would be released with the model, outside the DP-SGD guarantee — a
 * rare word in the vocabulary reveals that some record contains it. The hash maps every possible token to a bucket
 * by a fixed public function, so the model's input encoding is the same whatever the corpus; the price is
 * collisions (unrelated words share a bucket).
 *
 * <p>{@link #toDataSet} gives DL4J's layout for {@code EmbeddingSequenceLayer}: features [n, length] holding ids,
 * a feature mask [n, length] with 1 on the real tokens and 0 on the padding (a text with no token gets one padding
 * step with mask 1, so every sequence has a last real step for {@code LastTimeStep}), and one-hot labels [n, 2].
 *
 * <pre>{@code
 * HashedTokenizer tokenizer = new HashedTokenizer(4096, 64);
 * int[] ids = tokenizer.ids("Click HERE now");   // three ids in 1..4095
 * DataSet ds = tokenizer.toDataSet(List.of("click here", "meeting at noon"), new boolean[] {true, false});
 * }</pre>
 */
public final class HashedTokenizer {
  private static final Pattern WORD = Pattern.compile("[\\p{L}\\p{N}]+");
  private static final HashFunction HASH = Hashing.murmur3_32_fixed(0);
  private final int buckets;
  private final int length;

  /**
   * @param buckets number of ids including the padding id 0 (the embedding layer's nIn), at least 2
   * @param length  fixed sequence length T, at least 1
   */
  public HashedTokenizer(int buckets, int length) {
    checkArgument(buckets >= 2, "buckets must be >= 2, was %s", buckets);
    checkArgument(length >= 1, "length must be >= 1, was %s", length);
    this.buckets = buckets;
    this.length = length;
  }

  public int buckets() {
    return buckets;
  }

  public int length() {
    return length;
  }

  /** The lower-case word tokens of {@code text}, in order. */
  public static List<String> tokens(String text) {
    checkNotNull(text, "text");
    List<String> tokens = new ArrayList<>();
    Matcher m = WORD.matcher(text.toLowerCase(Locale.ROOT));
    while (m.find()) {
      tokens.add(m.group());
    }
    return tokens;
  }

  /** The bucket id of one token, in 1..buckets-1: a fixed function of the token alone. */
  public int bucket(String token) {
    checkNotNull(token, "token");
    return 1 + Math.floorMod(HASH.hashString(token, StandardCharsets.UTF_8).asInt(), buckets - 1);
  }

  /** The ids of the first {@link #length()} tokens of {@code text} (fewer if the text is shorter). */
  public int[] ids(String text) {
    List<String> tokens = tokens(text);
    int[] ids = new int[Math.min(length, tokens.size())];
    for (int t = 0; t < ids.length; t++) {
      ids[t] = bucket(tokens.get(t));
    }
    return ids;
  }

  /** Features, feature mask and one-hot labels (column 1 = {@code positive}) for {@code texts}; see the class. */
  public DataSet toDataSet(List<String> texts, boolean[] positive) {
    checkNotNull(texts, "texts");
    checkArgument(positive != null && positive.length == texts.size(),
        "positive must have one entry per text (%s texts)", texts.size());
    int n = texts.size();
    float[][] x = new float[n][length];
    float[][] mask = new float[n][length];
    float[][] y = new float[n][2];
    for (int i = 0; i < n; i++) {
      int[] ids = ids(texts.get(i));
      for (int t = 0; t < ids.length; t++) {
        x[i][t] = ids[t];
      }
      int real = Math.max(1, ids.length);
      for (int t = 0; t < real; t++) {
        mask[i][t] = 1f;
      }
      y[i][positive[i] ? 1 : 0] = 1f;
    }
    INDArray features = Nd4j.createFromArray(x).castTo(DataType.FLOAT);
    INDArray featureMask = Nd4j.createFromArray(mask).castTo(DataType.FLOAT);
    return new DataSet(features, Nd4j.createFromArray(y).castTo(DataType.FLOAT), featureMask, null);
  }

  /** {@link #toDataSet(List, boolean[])} for mail messages: their subject and body, spam as the positive class. */
  public DataSet toDataSet(List<MailMessage> messages) {
    checkNotNull(messages, "messages");
    boolean[] spam = new boolean[messages.size()];
    for (int i = 0; i < spam.length; i++) {
      spam[i] = messages.get(i).spam();
    }
    return toDataSet(messages.stream().map(MailMessage::subjectAndBody).toList(), spam);
  }
}
