package org.dp4j.listeners;

import static com.google.common.base.Preconditions.checkNotNull;
import static com.google.common.base.Preconditions.checkState;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Enumeration;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.zip.ZipEntry;
import java.util.zip.ZipException;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.util.ModelSerializer;
import org.dp4j.accounting.ledger.PrivacyLedger;
import org.dp4j.io.AtomicFiles;

/**
 * Saves the privacy ledger inside the DL4J model file, bound to the model it accounts for, and restores both,
 * so that resuming continues the ledger exactly and a crash loses no accounting.
 *
 * <pre>{@code
 * // given: MultiLayerNetwork net; PrivacyLedger ledger; java.io.File file; PrivacyLedger freshLedgerWithSameMechanism
 * LedgerCheckpoint.save(net, ledger, file, false);          // mid-training: voids hidden-state bounds
 * MultiLayerNetwork resumed = LedgerCheckpoint.restore(file, freshLedgerWithSameMechanism);
 * }</pre>
 *
 * <p>The file is DL4J's model zip (readable by {@code ModelSerializer}) plus one JSON entry {@value #ENTRY}: the
 * ledger state ({@link LedgerStateJson}), the model's iteration count and the SHA-256 of every model entry
 * (configuration, parameters, updater state) as written, and optional settings of the caller. Resuming refuses
 * <ul>
 *   <li>a ledger whose step count differs from the model's iteration count (a ledger from another point of the
 *       run, e.g. an older epoch's, or a ledger with fewer steps than the model took);
 *   <li>a ledger saved with other parameters (another run, or another save of this run);
 *   <li>a ledger of another mechanism, δ or budget ({@link PrivacyLedger#restore});
 *   <li>a checkpoint of an earlier dp4j that stored the ledger with Java serialization (it is never deserialized);
 *   <li>a zip with any other entry (DL4J's loader would read a {@code preprocessor.bin} with unfiltered Java
 *       deserialization): nothing reaches DL4J's loader before every check has passed.
 * </ul>
 * The binding catches stale files and mix-ups, not a user who edits both the model and the ledger on purpose.
 *
 * <p>The file is replaced atomically ({@link AtomicFiles}): a crash during a save leaves the previous
 * checkpoint. A checkpoint written while training goes on is an intermediate model leaving the trainer:
 * hidden-state (last-iterate) bounds no longer apply from then on and the ledger says so. Only the final save
 * ({@code trainingFinished = true}) keeps them.
 */
public final class LedgerCheckpoint {
  /** The zip entry holding the ledger and its binding to the model. */
  public static final String ENTRY = "dp4j/checkpoint.json";
  static final String FORMAT = "dp4j-checkpoint";
  static final int VERSION = 1;
  /** Where dp4j before checkpoint format 1 kept a Java-serialized ledger; refused, never read. */
  static final String LEGACY_ENTRY = "objects/dp4j-privacy-ledger";
  private static final long MAX_ENTRY_BYTES = 64L << 20;
  private static final String CONFIGURATION = "configuration.json";
  /** The entries DL4J writes for a MultiLayerNetwork with its updater (noParams.marker: one without parameters). */
  private static final Set<String> MODEL_ENTRIES = Set.of(CONFIGURATION, "coefficients.bin",
      "updaterState.bin", "noParams.marker");
  private static final ObjectMapper JSON = new ObjectMapper();

  private LedgerCheckpoint() {}

  /**
   * What a checkpoint holds besides the network.
   *
   * @param ledger the ledger state
   * @param iterationCount the model's iteration count at save time (equal to the ledger's steps)
   * @param sha256 SHA-256 (hex) of each model entry of the zip, by entry name
   * @param settings the caller's settings saved with the checkpoint (e.g. the command line's flags)
   */
  public record Contents(PrivacyLedger.State ledger, long iterationCount, Map<String, String> sha256,
      Map<String, String> settings) {
    public Contents {
      sha256 = Map.copyOf(sha256);
      settings = Map.copyOf(settings);
    }
  }

  /** Writes the model (with updater state) and the ledger state to {@code file}. */
  public static void save(MultiLayerNetwork net, PrivacyLedger ledger, File file, boolean trainingFinished) {
    save(net, ledger, file, trainingFinished, Map.of());
  }

  /**
   * Writes the model (with updater state), the ledger state and {@code settings} to {@code file}, atomically.
   *
   * @throws IllegalStateException if the ledger's steps differ from the model's iteration count (every private
   *     update is one iteration; a network trained before its ledger started cannot be bound to it)
   */
  public static void save(MultiLayerNetwork net, PrivacyLedger ledger, File file, boolean trainingFinished,
      Map<String, String> settings) {
    checkNotNull(settings, "settings");
    checkState(ledger.steps() == net.getIterationCount(), "the ledger accounts %s private updates but the model's "
        + "iteration count is %s; a checkpoint binds them and needs them equal (start the ledger with the "
        + "network's training, at iteration 0)", ledger.steps(), net.getIterationCount());
    if (!trainingFinished) {
      ledger.voidHiddenState("a model checkpoint was written during training after " + ledger.steps()
          + " updates (" + file.getName() + ")");
    }
    Path target = file.toPath();
    Path model = null;
    try {
      model = AtomicFiles.newTempFile(target);
      ModelSerializer.writeModel(net, model.toFile(), true);
      Path written = model;
      AtomicFiles.write(target, out -> copyWithLedger(written, net, ledger, settings, out));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write checkpoint " + file + ": " + AtomicFiles.reason(e), e);
    } finally {
      deleteQuietly(model);
    }
  }

  /** Copies DL4J's model zip entry by entry, hashing each, then adds the ledger entry. */
  private static void copyWithLedger(Path model, MultiLayerNetwork net, PrivacyLedger ledger,
      Map<String, String> settings, OutputStream out) throws IOException {
    Map<String, String> sha256 = new TreeMap<>();
    ZipOutputStream zip = new ZipOutputStream(out);
    try (ZipFile in = new ZipFile(model.toFile())) {
      for (Enumeration<? extends ZipEntry> e = in.entries(); e.hasMoreElements(); ) {
        ZipEntry entry = e.nextElement();
        zip.putNextEntry(new ZipEntry(entry.getName()));
        MessageDigest md = sha256();
        try (InputStream data = new DigestInputStream(in.getInputStream(entry), md)) {
          data.transferTo(zip);
        }
        zip.closeEntry();
        sha256.put(entry.getName(), HexFormat.of().formatHex(md.digest()));
      }
    }
    ObjectNode doc = JSON.createObjectNode();
    doc.put("format", FORMAT);
    doc.put("version", VERSION);
    ObjectNode m = doc.putObject("model");
    m.put("iterationCount", net.getIterationCount());
    m.put("epochCount", net.getEpochCount());
    sha256.forEach(m.putObject("sha256")::put);
    doc.set("ledger", LedgerStateJson.toJson(ledger.state()));
    settings.forEach(doc.putObject("settings")::put);
    zip.putNextEntry(new ZipEntry(ENTRY));
    zip.write(JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(doc));
    zip.closeEntry();
    zip.finish();
  }

  /**
   * Reads what a checkpoint holds besides the network, without checking it against the network (see
   * {@link #restore}).
   *
   * @throws InvalidCheckpointException if the file is no dp4j checkpoint or its ledger is malformed
   */
  public static Contents read(File file) {
    try (ZipFile zip = open(file)) {
      return contents(file, zip);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read checkpoint " + file + ": " + AtomicFiles.reason(e), e);
    }
  }

  /** The ledger state stored in a checkpoint. */
  public static PrivacyLedger.State readState(File file) {
    return read(file).ledger();
  }

  /**
   * Restores the network and replays the saved ledger into {@code freshLedger}, which must describe the same
   * mechanism, δ and budget, after checking that the ledger belongs to the stored network (same iteration
   * count, same parameters and updater state as when it was saved).
   *
   * @throws InvalidCheckpointException if any check fails; {@code freshLedger} is then unchanged
   */
  public static MultiLayerNetwork restore(File file, PrivacyLedger freshLedger) {
    try (ZipFile zip = open(file)) {
      Contents c = contents(file, zip);
      // Everything is checked before DL4J's loader sees the file: it deserializes a "preprocessor.bin" entry with
      // unfiltered Java serialization, so only the entries a dp4j checkpoint holds, with their digests, get there.
      requireOnlyModelEntries(file, zip);
      long iterations = iterationCount(file, zip);
      long steps = c.ledger().steps();
      if (steps != iterations || c.iterationCount() != iterations) {
        throw new InvalidCheckpointException(String.format("cannot resume from %s: its ledger accounts %d private "
            + "updates (saved at iteration %d) but the model in it took %d; the ledger belongs to another point "
            + "of the run (e.g. an older checkpoint's) and would understate the privacy spent", file, steps,
            c.iterationCount(), iterations));
      }
      verifyDigests(file, zip, c);
      MultiLayerNetwork net = ModelSerializer.restoreMultiLayerNetwork(file, true);
      checkState(net.getIterationCount() == iterations, "DL4J restored iteration %s, the file says %s",
          net.getIterationCount(), iterations);
      try {
        freshLedger.restore(c.ledger()); // checks the fingerprint first: refused, the ledger is unchanged
      } catch (IllegalArgumentException e) {
        throw new InvalidCheckpointException(e.getMessage(), e);
      }
      return net;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read checkpoint " + file + ": " + AtomicFiles.reason(e), e);
    }
  }

  /** Refuses entries other than DL4J's configuration, parameters and updater state, and the ledger. */
  private static void requireOnlyModelEntries(File file, ZipFile zip) {
    for (Enumeration<? extends ZipEntry> e = zip.entries(); e.hasMoreElements(); ) {
      String name = e.nextElement().getName();
      if (!MODEL_ENTRIES.contains(name) && !name.equals(ENTRY)) {
        throw new InvalidCheckpointException("cannot resume from " + file + ": it holds an entry '" + name + "' that "
            + "no dp4j checkpoint has (a DL4J preprocessor or normalizer would be read with Java deserialization)");
      }
    }
  }

  /** The model's iteration count from DL4J's configuration entry, read as plain JSON. */
  private static long iterationCount(File file, ZipFile zip) throws IOException {
    ZipEntry config = zip.getEntry(CONFIGURATION);
    if (config == null) {
      throw new InvalidCheckpointException("cannot resume from " + file + ": it holds no " + CONFIGURATION);
    }
    try (InputStream in = zip.getInputStream(config)) {
      JsonNode count = JSON.readTree(in).path("iterationCount");
      require(count.isIntegralNumber(), "cannot resume from " + file + ": its " + CONFIGURATION
          + " has no iteration count");
      return count.asLong();
    } catch (JacksonException e) {
      throw new InvalidCheckpointException("cannot resume from " + file + ": its " + CONFIGURATION
          + " is not valid JSON", e);
    }
  }

  private static ZipFile open(File file) throws IOException {
    if (!file.isFile()) {
      throw new InvalidCheckpointException("checkpoint " + file + (file.exists() ? " is not a file" : " does not exist"));
    }
    try {
      return new ZipFile(file);
    } catch (ZipException e) {
      throw new InvalidCheckpointException("checkpoint " + file + " is not a zip file (" + e.getMessage()
          + "); it is no DL4J model / dp4j checkpoint, or it was truncated", e);
    }
  }

  private static Contents contents(File file, ZipFile zip) throws IOException {
    ZipEntry entry = zip.getEntry(ENTRY);
    if (entry == null) {
      if (zip.getEntry(LEGACY_ENTRY) != null) {
        throw new InvalidCheckpointException("checkpoint " + file + " was written by an earlier dp4j that stored "
            + "the ledger with Java serialization; dp4j no longer reads it (deserializing would instantiate classes "
            + "named by the file, and the ledger is not bound to the model); start the run again");
      }
      throw new InvalidCheckpointException("model file " + file + " holds no dp4j privacy ledger (" + ENTRY + ")");
    }
    JsonNode doc;
    try (InputStream in = zip.getInputStream(entry)) {
      byte[] bytes = in.readNBytes((int) MAX_ENTRY_BYTES + 1);
      if (bytes.length > MAX_ENTRY_BYTES) {
        throw new InvalidCheckpointException("the ledger entry of " + file + " exceeds " + MAX_ENTRY_BYTES + " bytes");
      }
      doc = JSON.readTree(bytes);
    } catch (JacksonException e) {
      throw new InvalidCheckpointException("the ledger entry of " + file + " is not valid JSON: "
          + e.getOriginalMessage(), e);
    }
    try {
      require(doc != null && doc.isObject() && FORMAT.equals(doc.path("format").asText(null)),
          "its ledger entry is not a " + FORMAT + " document");
      require(doc.path("version").isInt() && doc.get("version").asInt() <= VERSION,
          "its checkpoint format version " + doc.path("version") + " is not one this dp4j reads (up to " + VERSION
              + ")");
      JsonNode model = doc.path("model");
      require(model.path("iterationCount").isIntegralNumber(), "it records no model iteration count");
      require(model.path("sha256").isObject() && model.get("sha256").size() > 0, "it records no model digest");
      Map<String, String> digests = strings(model.get("sha256"), "model digest");
      Map<String, String> settings = doc.has("settings") ? strings(doc.get("settings"), "settings") : Map.of();
      return new Contents(LedgerStateJson.fromJson(doc.get("ledger")), model.get("iterationCount").asLong(), digests,
          settings);
    } catch (InvalidCheckpointException e) {
      throw new InvalidCheckpointException("cannot resume from " + file + ": " + e.getMessage(), e);
    }
  }

  /** Every model entry of the zip must be recorded and have the recorded SHA-256. */
  private static void verifyDigests(File file, ZipFile zip, Contents c) throws IOException {
    Map<String, String> actual = new TreeMap<>();
    for (Enumeration<? extends ZipEntry> e = zip.entries(); e.hasMoreElements(); ) {
      ZipEntry entry = e.nextElement();
      if (!entry.getName().equals(ENTRY)) {
        MessageDigest md = sha256();
        try (InputStream data = new DigestInputStream(zip.getInputStream(entry), md)) {
          data.transferTo(OutputStream.nullOutputStream());
        }
        actual.put(entry.getName(), HexFormat.of().formatHex(md.digest()));
      }
    }
    if (!actual.equals(new TreeMap<>(c.sha256()))) {
      throw new InvalidCheckpointException("cannot resume from " + file + ": its ledger was saved with another model "
          + "(the SHA-256 of the stored parameters, updater state or configuration differs from the one recorded "
          + "with the ledger); the ledger belongs to another run or another save of this one");
    }
  }

  private static Map<String, String> strings(JsonNode n, String what) {
    require(n.isObject(), "its " + what + " is not a JSON object");
    Map<String, String> r = new TreeMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      require(e.getValue().isTextual(), "its " + what + " '" + e.getKey() + "' is not a string");
      r.put(e.getKey(), e.getValue().asText());
    }
    return r;
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new InvalidCheckpointException(message);
    }
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }

  private static void deleteQuietly(Path p) {
    if (p != null) {
      try {
        Files.deleteIfExists(p);
      } catch (IOException e) {
        // A leftover temporary model file is removed by the next successful save (AtomicFiles).
      }
    }
  }
}
