package org.dp4j.io;

import static com.google.common.base.Preconditions.checkNotNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks, before a long run starts, that every file it will write can be written: so that a finished run is not
 * lost to a typo in an output path. Each output must not be a folder, its folder must exist or be creatable
 * (it is created) and writable (probed by creating and deleting a temporary file, which also catches read-only
 * file systems), the outputs must name distinct files, and no output may replace an input or lie inside an input
 * folder.
 *
 * <pre>{@code
 * Map<String, Path> outputs = new LinkedHashMap<>();
 * outputs.put("--report", Path.of("out/report.json"));
 * outputs.put("--chart", Path.of("out/chart.png"));
 * OutputPaths.check(outputs, Map.of("--data-dir", Path.of(".cache/data/mnist")));
 * }</pre>
 */
public final class OutputPaths {
  private OutputPaths() {}

  /**
   * Checks {@code outputs} (by the name the user knows them under, e.g. a flag) against each other and against
   * {@code inputs} (files or folders).
   *
   * @throws OutputPathException naming the output, the path and what is wrong
   */
  public static void check(Map<String, Path> outputs, Map<String, Path> inputs) {
    Map<String, Path> resolved = new LinkedHashMap<>();
    outputs.forEach((name, path) -> resolved.put(name, checkOne(name, checkNotNull(path, name))));
    List<String> names = new ArrayList<>(resolved.keySet());
    for (int i = 0; i < names.size(); i++) {
      for (int j = i + 1; j < names.size(); j++) {
        if (resolved.get(names.get(i)).equals(resolved.get(names.get(j)))) {
          throw new OutputPathException(names.get(i) + " and " + names.get(j) + " name the same file "
              + resolved.get(names.get(i)) + "; one would overwrite the other");
        }
      }
    }
    resolved.forEach((name, out) -> inputs.forEach((inName, in) -> {
      Path input = canonical(in);
      if (out.equals(input)) {
        throw new OutputPathException(name + " " + out + " is also the input " + inName + "; writing it would "
            + "destroy the input");
      }
      if (Files.isDirectory(input) && out.startsWith(input)) {
        throw new OutputPathException(name + " " + out + " lies inside the input folder " + inName + " " + input
            + "; write outputs elsewhere");
      }
    }));
  }

  /** Whether two paths name the same file (after resolving the folders' symbolic links). */
  public static boolean sameFile(Path a, Path b) {
    return canonical(a).equals(canonical(b));
  }

  private static Path checkOne(String name, Path path) {
    Path file = path.toAbsolutePath().normalize();
    if (Files.isDirectory(file)) {
      throw new OutputPathException(name + " " + path + " is a folder; give a file name");
    }
    if (file.getFileName() == null) {
      throw new OutputPathException(name + " " + path + " names no file");
    }
    Path dir = file.getParent();
    if (Files.exists(dir) && !Files.isDirectory(dir)) {
      throw new OutputPathException(name + " " + path + ": " + dir + " is a file, not a folder");
    }
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new OutputPathException(name + " " + path + ": cannot create its folder (" + AtomicFiles.reason(e) + ")");
    }
    if (Files.exists(file) && !Files.isRegularFile(file)) {
      throw new OutputPathException(name + " " + path + " exists and is not a regular file");
    }
    if (Files.exists(file) && !Files.isWritable(file)) {
      throw new OutputPathException(name + " " + path + " exists and is read-only");
    }
    try {
      Files.delete(AtomicFiles.newTempFile(file));
    } catch (IOException e) {
      throw new OutputPathException(name + " " + path + ": its folder is not writable (" + AtomicFiles.reason(e)
          + ")");
    }
    return canonical(file);
  }

  /** The path with its folder's symbolic links resolved (the file itself need not exist). */
  private static Path canonical(Path p) {
    Path file = p.toAbsolutePath().normalize();
    try {
      if (Files.exists(file)) {
        return file.toRealPath();
      }
      Path dir = file.getParent();
      return dir != null && Files.exists(dir) ? dir.toRealPath().resolve(file.getFileName()) : file;
    } catch (IOException e) {
      return file;
    }
  }
}
