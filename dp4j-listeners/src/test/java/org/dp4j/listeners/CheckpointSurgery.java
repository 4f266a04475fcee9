package org.dp4j.listeners;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Enumeration;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

/** Test helper: builds checkpoints whose entries come from different files, as a mix-up or a rollback would. */
final class CheckpointSurgery {
  private CheckpointSurgery() {}

  /** {@code out} = {@code base} with entry {@code name} taken from {@code donor}. */
  static void replaceEntry(File base, File donor, String name, File out) throws IOException {
    try (ZipFile d = new ZipFile(donor); InputStream in = d.getInputStream(d.getEntry(name))) {
      replaceEntryBytes(base, name, in.readAllBytes(), out);
    }
  }

  /** {@code out} = {@code base} with entry {@code name} holding {@code bytes}. */
  static void replaceEntryBytes(File base, String name, byte[] bytes, File out) throws IOException {
    copy(base, name, bytes, out);
  }

  /** {@code out} = {@code base} plus entry {@code name} holding {@code bytes}. */
  static void addEntry(File base, String name, byte[] bytes, File out) throws IOException {
    copy(base, name, bytes, out);
  }

  private static void copy(File base, String name, byte[] bytes, File out) throws IOException {
    try (ZipFile b = new ZipFile(base); ZipOutputStream zip = new ZipOutputStream(new FileOutputStream(out))) {
      for (Enumeration<? extends ZipEntry> e = b.entries(); e.hasMoreElements(); ) {
        ZipEntry entry = e.nextElement();
        if (!entry.getName().equals(name)) {
          zip.putNextEntry(new ZipEntry(entry.getName()));
          try (InputStream in = b.getInputStream(entry)) {
            in.transferTo(zip);
          }
        }
      }
      zip.putNextEntry(new ZipEntry(name));
      zip.write(bytes);
    }
  }
}
