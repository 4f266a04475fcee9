package org.dp4j.audit;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import org.dp4j.noise.AesCtrRandom;

/**
 * The auditor's secret coins: canary i is included in training with probability ½, independently of everything else
 * (Steinke, Nasr &amp; Jagielski 2023). Drawn from {@link AesCtrRandom}: secure by default, a fixed seed
 * for tests only ({@link #isSecure()} says which).
 *
 * <pre>{@code
 * CanaryCoins coins = CanaryCoins.draw(1000, AesCtrRandom.secure());
 * boolean in = coins.included(17);
 * }</pre>
 */
public final class CanaryCoins {
  private final boolean[] included;
  private final boolean secure;

  private CanaryCoins(boolean[] included, boolean secure) {
    this.included = included;
    this.secure = secure;
  }

  /** m fair coins. */
  public static CanaryCoins draw(int canaries, AesCtrRandom random) {
    checkArgument(canaries > 0, "canaries must be > 0, was %s", canaries);
    checkNotNull(random, "random");
    boolean[] in = new boolean[canaries];
    for (int i = 0; i < canaries; i++) {
      in[i] = random.nextLong() < 0;   // the top bit of a uniform 64-bit word
    }
    return new CanaryCoins(in, random.isSecure());
  }

  public int canaries() {
    return included.length;
  }

  public boolean included(int canary) {
    return included[canary];
  }

  /** A copy of all coins. */
  public boolean[] included() {
    return included.clone();
  }

  /** Number of included canaries. */
  public int includedCount() {
    int n = 0;
    for (boolean b : included) {
      n += b ? 1 : 0;
    }
    return n;
  }

  /** Whether the coins came from a secure generator (false for a fixed test seed). */
  public boolean isSecure() {
    return secure;
  }
}
