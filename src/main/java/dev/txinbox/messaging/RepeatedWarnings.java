package dev.txinbox.messaging;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

import org.jboss.logging.Logger;

/**
 * Warnings about a fault that every message meets, such as SQS refusing the deletes for their rate: each distinct
 * problem is said the first time it shows, then at most once per window with how often it showed meanwhile, so that
 * the incident where the log matters does not bury it under one line per message. What a problem is: its key, the
 * caller's words for it with the ids, handles and request ids taken out ({@link #problem}).
 */
final class RepeatedWarnings {

    private static final Pattern REQUEST_ID = Pattern.compile("(?i)request id: [^,)]*");
    /** Receipt handles, message ids, UUIDs: long runs that hold a digit. */
    private static final Pattern IDS = Pattern.compile("(?<![\\w+/=-])(?=[\\w+/=-]*\\d)[\\w+/=-]{8,}");

    private final Logger log;
    private final Duration window;
    private final LongSupplier nanoClock;
    private final Map<String, Repeats> problems = new ConcurrentHashMap<>();

    RepeatedWarnings(Logger log, Duration window, LongSupplier nanoClock) {
        this.log = log;
        this.window = window;
        this.nanoClock = nanoClock;
    }

    /** The key of a problem: {@code words} without what differs from one message (or call) to the next. */
    static String problem(String... words) {
        String key = String.join(" | ", words);
        key = IDS.matcher(REQUEST_ID.matcher(key).replaceAll("")).replaceAll("<id>");
        return key.length() > 200 ? key.substring(0, 200) : key;
    }

    /** Says {@code line} if {@code problem} was not said within the window, with the count of the times it was not. */
    void warn(String problem, String line) {
        long now = nanoClock.getAsLong();
        Repeats repeats = problems.computeIfAbsent(problem, p -> new Repeats());
        long unsaid;
        synchronized (repeats) {
            if (repeats.saidAtNanos != 0 && now - repeats.saidAtNanos < window.toNanos()) {
                repeats.unsaid++;
                return;
            }
            unsaid = repeats.unsaid;
            repeats.unsaid = 0;
            repeats.saidAtNanos = now;
        }
        log.warn(unsaid == 0 ? line : line + " (and " + unsaid + " more like it in the last " + window.toSeconds() + " s)");
    }

    /** Says, for each problem whose window is over, how often it showed without being said; forgets the quiet ones. */
    void sayUnsaid() {
        long now = nanoClock.getAsLong();
        problems.forEach((problem, repeats) -> {
            long unsaid;
            synchronized (repeats) {
                if (now - repeats.saidAtNanos < window.toNanos()) {
                    return;
                }
                unsaid = repeats.unsaid;
                repeats.unsaid = 0;
                if (unsaid == 0) {
                    problems.remove(problem, repeats);
                    return;
                }
                repeats.saidAtNanos = now;
            }
            log.warnf("%s: %d more times in the last %d s", problem, unsaid, window.toSeconds());
        });
    }

    private static final class Repeats {
        long saidAtNanos;
        long unsaid;
    }
}
