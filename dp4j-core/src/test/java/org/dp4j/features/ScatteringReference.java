package org.dp4j.features;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * The values printed by src/test/python/scattering_reference.py (numpy, double precision, written from the
 * formulas independently of the Java code) and the test images it used, rebuilt here from the same formulas.
 */
final class ScatteringReference {
  private static final Map<String, double[]> VALUES = load();

  private ScatteringReference() {}

  /** A line of the reference file: its numbers after the key (e.g. "lp_min", "psi 1 5", "scattering blob"). */
  static double[] values(String key) {
    double[] v = VALUES.get(key);
    if (v == null) {
      throw new IllegalArgumentException("no reference line '" + key + "'");
    }
    return v;
  }

  /** 28×28 Gaussian blob times a plane wave, row-major. */
  static float[] blob() {
    float[] img = new float[28 * 28];
    for (int r = 0; r < 28; r++) {
      for (int c = 0; c < 28; c++) {
        double g = Math.exp(-((r - 13.5) * (r - 13.5) + (c - 12.0) * (c - 12.0)) / (2 * 36.0));
        img[r * 28 + c] = (float) (g * (1 + Math.sin(0.7 * r + 0.3 * c)) / 2);
      }
    }
    return img;
  }

  /** 28×28 values of the LCG x ← (1103515245 x + 12345) mod 2³¹ from x = 12345, divided by 2³¹. */
  static float[] lcg() {
    float[] img = new float[28 * 28];
    long state = 12345;
    for (int i = 0; i < img.length; i++) {
      state = (1103515245L * state + 12345) % (1L << 31);
      img[i] = (float) (state / (double) (1L << 31));
    }
    return img;
  }

  private static Map<String, double[]> load() {
    Map<String, double[]> out = new HashMap<>();
    try (BufferedReader in = new BufferedReader(new InputStreamReader(
        ScatteringReference.class.getResourceAsStream("scattering-reference.txt"), StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (line.startsWith("#")) {
          continue;
        }
        String[] t = line.trim().split(" ");
        int keyLength = t[0].equals("psi") ? 3 : t[0].equals("scattering") ? 2 : 1;
        double[] v = new double[t.length - keyLength];
        for (int i = 0; i < v.length; i++) {
          v[i] = Double.parseDouble(t[keyLength + i]);
        }
        out.put(String.join(" ", java.util.Arrays.copyOf(t, keyLength)), v);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }
}
