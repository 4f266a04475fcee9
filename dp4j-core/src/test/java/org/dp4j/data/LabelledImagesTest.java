package org.dp4j.data;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LabelledImagesTest {
  @Test
  void mirroredReversesEveryRowAndKeepsTheLabels() {
    // Two 2×3 images: pixel (r, c) of image i is 10·i + 3·r + c.
    byte[] pixels = new byte[12];
    for (int i = 0; i < 2; i++) {
      for (int r = 0; r < 2; r++) {
        for (int c = 0; c < 3; c++) {
          pixels[i * 6 + r * 3 + c] = (byte) (10 * i + 3 * r + c);
        }
      }
    }
    LabelledImages images = new LabelledImages(pixels, new byte[] {4, 1}, 2, 3, 5);
    LabelledImages mirrored = images.mirrored();
    for (int i = 0; i < 2; i++) {
      for (int r = 0; r < 2; r++) {
        for (int c = 0; c < 3; c++) {
          assertThat(mirrored.rawPixel(i, r * 3 + c)).isEqualTo(10 * i + 3 * r + (2 - c));
        }
      }
    }
    assertThat(mirrored.labels()).containsExactly(4, 1);
    assertThat(mirrored.classes()).isEqualTo(5);
    assertThat(images.rawPixel(1, 0)).isEqualTo(10);        // the original is unchanged
    assertThat(mirrored.mirrored().scaledFeatures()).containsExactly(images.scaledFeatures());
  }
}
