package org.dp4j.data;

import static com.google.common.base.Preconditions.checkNotNull;
import static org.dp4j.InvalidSettingException.checkArgument;

/**
 * One message of the SpamAssassin corpus: its group (folder), its id within the group, its full text (headers and
 * body) and whether the group is spam.
 *
 * <pre>{@code
 * MailMessage m = new MailMessage("spam-1", "00001", "Subject: win\n\nclick here", true);
 * String key = m.key();   // "spam-1/00001"
 * }</pre>
 */
public record MailMessage(String group, String id, String text, boolean spam) {
  public MailMessage {
    checkNotNull(group, "group");
    checkNotNull(id, "id");
    checkNotNull(text, "text");
    checkArgument(!group.isEmpty() && !id.isEmpty(), "group and id must be non-empty, were '%s' and '%s'", group,
        id);
  }

  /** {@code group/id}, unique in the corpus (ids repeat across groups). */
  public String key() {
    return group + "/" + id;
  }

  /**
   * The part a classifier reads: the {@code Subject:} header line followed by the body (everything after the first
   * empty line). The other headers are left out: they carry routing artefacts of how the corpus was collected
   * (dates, relay hosts) rather than the content of the mail.
   */
  public String subjectAndBody() {
    String normalised = text.replace("\r\n", "\n");
    int split = normalised.indexOf("\n\n");
    String headers = split < 0 ? normalised : normalised.substring(0, split);
    String body = split < 0 ? "" : normalised.substring(split + 2);
    String subject = "";
    for (String line : headers.split("\n", -1)) {
      if (line.regionMatches(true, 0, "Subject:", 0, 8)) {
        subject = line.substring(8).trim();
        break;
      }
    }
    return subject + "\n" + body;
  }
}
