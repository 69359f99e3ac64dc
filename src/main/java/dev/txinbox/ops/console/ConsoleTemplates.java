package dev.txinbox.ops.console;

import java.util.List;

import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;

/** The console's pages (templates/console), checked against these signatures at build time. */
@CheckedTemplate(basePath = "console")
final class ConsoleTemplates {

    private ConsoleTemplates() {
    }

    static native TemplateInstance signIn(ConsoleViews.Chrome chrome, String error);

    static native TemplateInstance closed(ConsoleViews.Chrome chrome);

    static native TemplateInstance problem(ConsoleViews.Chrome chrome, String title, String message, String back);

    static native TemplateInstance overview(ConsoleViews.Chrome chrome, String liveness, List<ConsoleViews.Check> liveChecks,
            String readiness, List<ConsoleViews.Check> readyChecks, List<ConsoleViews.ConsumerCard> consumers,
            String sampleEvery);

    static native TemplateInstance entries(ConsoleViews.Chrome chrome, ConsoleViews.EntriesPage view);

    static native TemplateInstance entry(ConsoleViews.Chrome chrome, ConsoleViews.EntryDetail view);

    static native TemplateInstance failures(ConsoleViews.Chrome chrome, List<String> consumers, String consumer,
            List<ConsoleViews.GroupRow> groups);

    static native TemplateInstance streams(ConsoleViews.Chrome chrome, List<String> consumers, String consumer,
            List<ConsoleViews.StreamRow> streams);

    static native TemplateInstance audit(ConsoleViews.Chrome chrome, List<ConsoleViews.AuditRow> rows,
            ConsoleViews.Link previous, ConsoleViews.Link next);

    static native TemplateInstance confirmReplay(ConsoleViews.Chrome chrome, ConsoleViews.EntryRow entry);

    static native TemplateInstance confirmRedrive(ConsoleViews.Chrome chrome, String consumer, String deadLetterQueue,
            String sourceQueue, String depth, int maxAll);

    static native TemplateInstance confirmRelease(ConsoleViews.Chrome chrome, ConsoleViews.StreamRow stream);

    static native TemplateInstance confirmRetryGroup(ConsoleViews.Chrome chrome, ConsoleViews.GroupRow group,
            List<ConsoleViews.EntryRow> members, int limit);

    static native TemplateInstance outbox(ConsoleViews.Chrome chrome, ConsoleViews.OutboxSummary summary,
            List<ConsoleViews.OutboxRow> streams);

    static native TemplateInstance confirmOutbox(ConsoleViews.Chrome chrome, String action, ConsoleViews.OutboxRow stream);

    static native TemplateInstance result(ConsoleViews.Chrome chrome, ConsoleViews.Result result);
}
