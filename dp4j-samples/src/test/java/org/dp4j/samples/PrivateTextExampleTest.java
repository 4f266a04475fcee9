package org.dp4j.samples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.dp4j.data.MailMessage;
import org.dp4j.data.SpamAssassinLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sample end to end on a tiny synthetic corpus (60 messages of varying length, one epoch): masked sequences go
 * through the private {@code fit}, and the JSON carries the contract fields.
 */
class PrivateTextExampleTest {
  @TempDir
  Path dir;

  @Test
  void trainsOnMaskedSequencesAndPrintsTheContractFields() throws Exception {
    for (String group : SpamAssassinLoader.GROUPS.keySet()) {
      Files.createDirectories(dir.resolve(group));
      for (int i = 0; i < 12; i++) {
        String body = (SpamAssassinLoader.GROUPS.get(group) ? "cash offer click " : "meeting notes attached ")
            .repeat(1 + i * 3);
        Files.writeString(dir.resolve(group).resolve(String.format("%05d.x.json", i)), String.format(
            "{\"id\":\"%05d\",\"group\":\"%s\",\"checksum\":{},\"text\":\"Subject: s\\n\\n%s\"}", i, group, body));
      }
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrivateTextExample.run(new String[] {"--data-dir", dir.toString(), "--epochs", "1", "--batch", "16", "--json"},
        new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String out = bytes.toString(StandardCharsets.UTF_8).trim();
    assertThat(out.lines()).hasSize(1);
    JsonNode j = new ObjectMapper().readTree(out);
    List<MailMessage> test = SpamAssassinLoader.split(SpamAssassinLoader.load(dir), true);
    double spam = test.stream().filter(MailMessage::spam).count() / (double) test.size();
    assertThat(j.get("testSize").asInt()).isEqualTo(test.size());
    assertThat(j.get("trainSize").asInt()).isEqualTo(60 - test.size());
    assertThat(j.get("majorityBaseline").asDouble()).isEqualTo(Math.max(spam, 1 - spam));
    assertThat(j.get("testAccuracy").asDouble()).isBetween(0.0, 1.0);
    assertThat(j.get("epsilon").asDouble()).isLessThanOrEqualTo(3.0).isGreaterThan(2.9);
    assertThat(j.get("delta").asDouble()).isEqualTo(1e-5);
    assertThat(j.get("steps").asLong()).isPositive();
  }
}
