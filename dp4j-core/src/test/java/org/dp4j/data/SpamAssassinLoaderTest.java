package org.dp4j.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The SpamAssassin loader on a few synthetic JSON files: parsing, labels, validation and the fixed split. */
class SpamAssassinLoaderTest {
  @TempDir
  Path dir;

  private Path write(String group, String file, String json) throws IOException {
    Path folder = Files.createDirectories(dir.resolve(group));
    return Files.writeString(folder.resolve(file), json);
  }

  private static String message(String id, String group, String text) {
    return "{\"id\":\"" + id + "\",\"group\":\"" + group + "\",\"checksum\":{\"type\":\"MD5\",\"value\":\"x\"},"
        + "\"text\":\"" + text + "\"}";
  }

  private void writeCorpus() throws IOException {
    for (String group : List.of("easy-ham-1", "easy-ham-2", "hard-ham-1", "spam-1", "spam-2")) {
      write(group, "00002.b.json", message("00002", group, "From: a\\nSubject: Second " + group + "\\n\\nbody two"));
      write(group, "00001.a.json", message("00001", group, "From: a\\nSubject: First\\nX: y\\n\\nHello\\n\\nagain"));
    }
    write("spam-1", "00001.a.txt", "not a message file: ignored");
  }

  @Test
  void readsEveryGroupInAFixedOrderWithLabels() throws IOException {
    writeCorpus();
    List<MailMessage> all = SpamAssassinLoader.load(dir);
    assertThat(all).hasSize(10);
    assertThat(all).extracting(MailMessage::key).startsWith("easy-ham-1/00001", "easy-ham-1/00002",
        "easy-ham-2/00001").endsWith("spam-2/00001", "spam-2/00002");
    assertThat(all.stream().filter(MailMessage::spam).map(MailMessage::group).distinct())
        .containsExactly("spam-1", "spam-2");
    // Subject line, then everything after the first empty line (the other headers dropped).
    assertThat(all.get(0).subjectAndBody()).isEqualTo("First\nHello\n\nagain");
  }

  @Test
  void corruptOrMissingFilesAreNamed() throws IOException {
    writeCorpus();
    Path broken = write("hard-ham-1", "00003.c.json", "{\"id\": \"00003\", \"group\": ");
    assertThatThrownBy(() -> SpamAssassinLoader.load(dir)).isInstanceOf(DataFileException.class)
        .hasMessageContaining(broken.toString()).hasMessageContaining("malformed JSON");
    Files.writeString(broken, message("00003", "spam-1", "text"));
    assertThatThrownBy(() -> SpamAssassinLoader.load(dir)).isInstanceOf(DataFileException.class)
        .hasMessageContaining(broken.toString()).hasMessageContaining("differs from its folder");
    Files.writeString(broken, "{\"id\":\"00003\",\"group\":\"hard-ham-1\"}");
    assertThatThrownBy(() -> SpamAssassinLoader.load(dir)).isInstanceOf(DataFileException.class)
        .hasMessageContaining(broken.toString()).hasMessageContaining("'text'");
    Files.delete(broken);
    try (var files = Files.list(dir.resolve("spam-2"))) {
      for (Path f : files.toList()) {
        Files.delete(f);
      }
    }
    Files.delete(dir.resolve("spam-2"));
    assertThatThrownBy(() -> SpamAssassinLoader.load(dir)).isInstanceOf(DataFileException.class)
        .hasMessageContaining(dir.resolve("spam-2").toString()).hasMessageContaining("fetch-data.sh");
  }

  @Test
  void splitIsAFunctionOfTheKeyOnly() {
    // Expected membership from python3 hashlib: first four bytes of SHA-256(key), big-endian, mod 5 == 0
    // (spam-2/01396 -> 2208713430, spam-1/00001 -> 624043552, hard-ham-1/00042 -> 60890148).
    assertThat(SpamAssassinLoader.isTest(new MailMessage("spam-2", "01396", "any", true))).isTrue();
    assertThat(SpamAssassinLoader.isTest(new MailMessage("spam-2", "01396", "other text", true))).isTrue();
    assertThat(SpamAssassinLoader.isTest(new MailMessage("spam-1", "00001", "any", true))).isFalse();
    assertThat(SpamAssassinLoader.isTest(new MailMessage("hard-ham-1", "00042", "any", false))).isFalse();
    List<MailMessage> many = IntStream.range(0, 4000)
        .mapToObj(i -> new MailMessage("easy-ham-1", String.format("%05d", i), "", false)).toList();
    int test = SpamAssassinLoader.split(many, true).size();
    // Binomial(4000, 0.2): sd about 25; 0.2 +- 5 sd.
    assertThat(test).isBetween(675, 925);
    assertThat(SpamAssassinLoader.split(many, false)).hasSize(4000 - test);
  }
}
