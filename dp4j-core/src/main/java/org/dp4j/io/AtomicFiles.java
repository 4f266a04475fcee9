package org.dp4j.io;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Writes a file so that a reader, or a crash, sees either the old complete file or the new complete file, never
 * a truncated one: the content goes to a temporary file in the same folder, is flushed to the disk
 * ({@link FileChannel#force}) and renamed over the target in one atomic step ({@code ATOMIC_MOVE}); the folder is
 * then synced so the rename itself survives a power cut (where the platform allows it).
 *
 * <pre>{@code
 * // given: String json; String csv
 * AtomicFiles.write(Path.of("report.json"), out -> out.write(json.getBytes(StandardCharsets.UTF_8)));
 * AtomicFiles.writeString(Path.of("ledger.csv"), csv);
 * }</pre>
 *
 * <p>The temporary file is deleted on any failure. A process killed mid-write (SIGKILL, power cut) cannot delete
 * it; its name carries the writer's process id, and the next successful write of the same target deletes such
 * leftovers of processes that are no longer alive. A file system without atomic rename (some network shares) is
 * refused with an {@link IOException} saying so, rather than written non-atomically.
 */
public final class AtomicFiles {
  private static final String SUFFIX = ".dp4j-tmp";

  private AtomicFiles() {}

  /** Produces a file's content. */
  @FunctionalInterface
  public interface Content {
    /** Writes the content to {@code out}; must not close it. */
    void writeTo(OutputStream out) throws IOException;
  }

  /** Writes {@code text} as UTF-8, atomically. */
  public static void writeString(Path target, String text) throws IOException {
    checkNotNull(text, "text");
    write(target, out -> out.write(text.getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * Writes {@code content} to {@code target} atomically, creating the parent folders if needed.
   *
   * @throws IOException naming the target and the reason (the temporary file is gone by then)
   */
  public static void write(Path target, Content content) throws IOException {
    checkNotNull(content, "content");
    Path file = target.toAbsolutePath().normalize();
    checkArgument(!Files.isDirectory(file), "%s is a folder, not a file", file);
    Path dir = file.getParent();
    Files.createDirectories(dir);
    Path temp = newTempFile(file);
    boolean done = false;
    try {
      try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
        OutputStream out = new BufferedOutputStream(Channels.newOutputStream(channel), 1 << 16);
        content.writeTo(out);
        out.flush();
        channel.force(true);
      }
      moveAtomically(temp, file);
      done = true;
    } finally {
      if (!done) {
        Files.deleteIfExists(temp);
      }
    }
    syncFolder(dir);
    deleteLeftovers(file);
  }

  /**
   * A new empty temporary file beside {@code target} (its folder is created if missing), named after it and this
   * process, for callers that must hand a path to a library writing the file itself; rename it with
   * {@link #moveAtomically} or delete it.
   */
  public static Path newTempFile(Path target) throws IOException {
    Path file = target.toAbsolutePath().normalize();
    Path dir = Files.createDirectories(file.getParent());
    String name = "." + file.getFileName() + "." + ProcessHandle.current().pid() + "."
        + UUID.randomUUID().toString().substring(0, 8) + SUFFIX;
    return Files.createFile(dir.resolve(name));
  }

  /** Renames {@code temp} over {@code target} atomically, after flushing {@code temp} to the disk. */
  public static void moveAtomically(Path temp, Path target) throws IOException {
    try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
      channel.force(true);
    }
    try {
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      throw new IOException("cannot replace " + target + " atomically: its file system does not support an "
          + "atomic rename (" + e.getMessage() + "); write to a local disk instead", e);
    }
  }

  /**
   * The operating system's reason for an I/O failure in words ("permission denied: /a/b"), for error messages:
   * Java's own messages for these exceptions are often only the path.
   */
  public static String reason(IOException e) {
    String what = e instanceof AccessDeniedException ? "permission denied"
        : e instanceof NoSuchFileException ? "no such file or folder"
        : e instanceof FileAlreadyExistsException ? "already exists"
        : e instanceof NotDirectoryException ? "not a folder"
        : e instanceof FileSystemException f && f.getReason() != null ? f.getReason()
        : null;
    if (e instanceof FileSystemException f) {
      return (what == null ? "I/O error" : what) + ": " + f.getFile()
          + (f.getOtherFile() == null ? "" : " -> " + f.getOtherFile());
    }
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }

  /** Leftover temporary files of {@code target} from processes that were killed while writing it. */
  static List<Path> leftovers(Path target) throws IOException {
    Path file = target.toAbsolutePath().normalize();
    String prefix = "." + file.getFileName() + ".";
    List<Path> found = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(file.getParent(), prefix + "*" + SUFFIX)) {
      for (Path p : ds) {
        writerPid(p.getFileName().toString(), prefix).filter(pid -> !alive(pid)).ifPresent(pid -> found.add(p));
      }
    }
    return found;
  }

  private static void deleteLeftovers(Path file) {
    try {
      for (Path p : leftovers(file)) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // The write succeeded; a leftover that cannot be listed or deleted now is retried by the next write.
    }
  }

  private static Optional<Long> writerPid(String name, String prefix) {
    String rest = name.substring(prefix.length());
    int dot = rest.indexOf('.');
    try {
      return dot > 0 ? Optional.of(Long.parseLong(rest.substring(0, dot))) : Optional.empty();
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  private static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  private static void syncFolder(Path dir) {
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException | UnsupportedOperationException e) {
      // Some platforms (Windows) cannot open a folder; the rename is still atomic, only its durability
      // across a power cut is then up to the file system.
    }
  }
}
