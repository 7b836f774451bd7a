package io.epochal.tools.internal;

/** Messages of errors for one line of output. Stateless and thread-safe. */
public final class Errors {
  private Errors() {
  }

  /**
   * @param e the error
   * @return the message of {@code e} (with its causes') on one line
   */
  public static String oneLine(Throwable e) {
    StringBuilder sb = new StringBuilder();
    for (Throwable t = e; t != null && sb.length() < 2000; t = t.getCause()) {
      String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
      if (sb.indexOf(m) < 0) {
        sb.append(sb.length() == 0 ? "" : ": ").append(m);
      }
    }
    return sb.toString().replaceAll("\\s*\\R\\s*", " ");
  }
}
