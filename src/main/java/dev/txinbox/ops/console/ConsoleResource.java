package dev.txinbox.ops.console;

import static dev.txinbox.ops.console.ConsoleViews.age;
import static dev.txinbox.ops.console.ConsoleViews.duration;
import static dev.txinbox.ops.console.ConsoleViews.href;
import static dev.txinbox.ops.console.ConsoleViews.shortened;
import static dev.txinbox.ops.console.ConsoleViews.text;
import static dev.txinbox.ops.console.ConsoleViews.time;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Cookie;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.RestForm;
import org.jboss.resteasy.reactive.RestPath;
import org.jboss.resteasy.reactive.RestQuery;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.txinbox.config.TxinboxConfig;
import dev.txinbox.inbox.InboxAttempt;
import dev.txinbox.inbox.InboxMessage;
import dev.txinbox.inbox.InboxStatus;
import dev.txinbox.inbox.Outcome;
import dev.txinbox.ops.AdminAudit;
import dev.txinbox.ops.AdminInput;
import dev.txinbox.ops.AdminToken;
import dev.txinbox.ops.InboxOperations;
import dev.txinbox.ops.InboxStatistics;
import dev.txinbox.ordering.StreamOrdering;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.health.SmallRyeHealthReporter;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpServerRequest;

/**
 * The operator console: server-rendered pages over the same services as the admin API ({@link InboxOperations},
 * {@link InboxStatistics}, {@link AdminAudit}, the health checks). A page that changes something is two
 * steps: a GET shows what will happen and a form, the form's POST (with the session's CSRF token) does it
 * and shows the result. No GET changes state.
 */
@Path("/console")
@Blocking
@Produces(MediaType.TEXT_HTML)
public class ConsoleResource {

    private static final Logger LOG = Logger.getLogger(ConsoleResource.class);

    static final String SIGN_IN = "/console/sign-in";
    static final int PAGE_SIZE = 50;
    static final int MAX_PAGE = 10_000_000;
    /** "Redrive all" moves what the dead-letter queue holds when asked, at most this many. */
    static final int MAX_REDRIVE_ALL = 10_000;
    /** A group retry replays at most this many entries, the oldest first; the rest wait for the next one. */
    static final int MAX_GROUP_RETRY = 500;
    private static final int MAX_STREAMS = 500;
    private static final int MAX_GROUPS = 200;
    /** The problem statuses: what the entries page lists unless told otherwise. */
    private static final Set<InboxStatus> PROBLEMS = EnumSet.of(InboxStatus.FAILED, InboxStatus.DEAD,
            InboxStatus.PARKED, InboxStatus.REJECTED);
    @CheckedTemplate(basePath = "console")
    static class Templates {
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

        static native TemplateInstance result(ConsoleViews.Chrome chrome, ConsoleViews.Result result);
    }

    /** An answer other than the page asked for: bad input, a refusal, something missing. */
    static final class Problem extends RuntimeException {
        final Response.Status status;
        final String title;

        Problem(Response.Status status, String title, String message) {
            super(message);
            this.status = status;
            this.title = title;
        }
    }

    private final InboxOperations operations;
    private final InboxStatistics statistics;
    private final AdminAudit audit;
    private final AdminToken token;
    private final ConsoleSessions sessions;
    private final SignInThrottle throttle;
    private final OutcomeHistory history;
    private final FailureGroups failureGroups;
    private final StreamOrdering ordering;
    private final SmallRyeHealthReporter health;
    private final ConsoleRequest request;
    private final TxinboxConfig.Console config;
    private final ConsoleClock clock;
    private final ObjectMapper json;

    public ConsoleResource(InboxOperations operations, InboxStatistics statistics, AdminAudit audit, AdminToken token,
            ConsoleSessions sessions, SignInThrottle throttle, OutcomeHistory history, FailureGroups failureGroups,
            StreamOrdering ordering, SmallRyeHealthReporter health, ConsoleRequest request, TxinboxConfig config,
            ConsoleClock clock, ObjectMapper json) {
        this.operations = operations;
        this.statistics = statistics;
        this.audit = audit;
        this.token = token;
        this.sessions = sessions;
        this.throttle = throttle;
        this.history = history;
        this.failureGroups = failureGroups;
        this.ordering = ordering;
        this.health = health;
        this.request = request;
        this.config = config.console();
        this.clock = clock;
        this.json = json;
    }

    // ------------------------------------------------------------------------------------------ sign-in

    @GET
    @Path("/sign-in")
    public TemplateInstance signInPage() {
        return Templates.signIn(null, null);
    }

    /**
     * The token comes in a POST form, never in a URL. A refusal is logged (never the token), counted in
     * {@code txinbox_admin_auth_failures_total{reason}}, and answered late (see {@link SignInThrottle}).
     */
    @POST
    @Path("/sign-in")
    public Uni<Response> signIn(@RestForm String token, HttpServerRequest http, UriInfo uri) {
        String client = client(http);
        Duration wait = throttle.waitFor(client);
        if (!wait.isZero()) {
            LOG.warnf("console sign-in from %s refused unread: too soon after a refused one (%d ms to wait)", client,
                    wait.toMillis());
            return Uni.createFrom().item(ConsoleFilter.html(Response.Status.TOO_MANY_REQUESTS, Templates.signIn(null,
                    "Too many refused sign-ins from your address: try again in " + Math.max(1, wait.toSeconds())
                            + " s.").render()));
        }
        String reason = token == null || token.isEmpty() ? AdminToken.MISSING
                : this.token.matches(token) ? null : AdminToken.WRONG;
        if (reason != null) {
            this.token.refused(reason);
            Duration delay = throttle.refused(client);
            LOG.warnf("console sign-in refused (%s) from %s", reason, client);
            Response refused = ConsoleFilter.html(Response.Status.UNAUTHORIZED,
                    Templates.signIn(null, reason.equals(AdminToken.MISSING) ? "Enter the admin token."
                            : "That is not the admin token.").render());
            return Uni.createFrom().item(refused).onItem().delayIt().by(delay);
        }
        throttle.succeeded(client);
        ConsoleSessions.Opened opened = sessions.open(client);
        audit.record(opened.session().actor(), "sign-in", null, null, "signed in", "from " + client);
        return Uni.createFrom().item(Response.seeOther(URI.create("/console"))
                .header(HttpHeaders.SET_COOKIE, cookie(opened.cookie(), config.sessionLifetime().toSeconds(), http, uri))
                .build());
    }

    @POST
    @Path("/sign-out")
    public Response signOut(@RestForm String csrf, HttpHeaders headers, HttpServerRequest http, UriInfo uri) {
        ConsoleSessions.Session session = checkCsrf(csrf);
        Cookie cookie = headers.getCookies().get(ConsoleSessions.COOKIE);
        sessions.close(cookie == null ? null : cookie.getValue());
        audit.record(session.actor(), "sign-out", null, null, "signed out", null);
        return Response.seeOther(URI.create(SIGN_IN)).header(HttpHeaders.SET_COOKIE, cookie("", 0, http, uri)).build();
    }

    // ------------------------------------------------------------------------------------------ pages

    @GET
    public TemplateInstance overview() {
        JsonObject live = health.getLiveness().getPayload();
        JsonObject ready = health.getReadiness().getPayload();
        List<ConsoleViews.Check> liveChecks = checks(live), readyChecks = checks(ready);
        Map<String, Map<String, Long>> counts = operations.countsByStatus();
        Instant now = clock.now();
        List<ConsoleViews.ConsumerCard> cards = new ArrayList<>();
        for (String consumer : operations.consumerNames()) {
            cards.add(card(consumer, now, liveChecks, readyChecks, counts.getOrDefault(consumer, Map.of())));
        }
        return Templates.overview(chrome("Overview", "overview"), live.getString("status", "?"), liveChecks,
                ready.getString("status", "?"), readyChecks, cards, ConsoleViews.duration(config.sampleEvery()));
    }

    @GET
    @Path("/entries")
    public Response entries(@RestQuery String consumer, @RestQuery String status, @RestQuery String aggregateId,
            @RestQuery String from, @RestQuery String to, @RestQuery String page) {
        ConsoleViews.EntryFilterForm form = new ConsoleViews.EntryFilterForm(text(consumer), text(status),
                text(aggregateId), text(from), text(to));
        List<ConsoleViews.KeyValue> statuses = new ArrayList<>();
        statuses.add(new ConsoleViews.KeyValue("", "failed, dead, parked, rejected"));
        for (InboxStatus s : InboxStatus.values()) {
            statuses.add(new ConsoleViews.KeyValue(s.name(), s.name().toLowerCase()));
        }
        statuses.add(new ConsoleViews.KeyValue("ANY", "any status"));
        InboxOperations.EntryFilter filter;
        int pageNumber;
        try {
            Set<InboxStatus> wanted = blank(status) ? PROBLEMS
                    : "ANY".equals(status) ? Set.of() : Set.of(AdminInput.status(status));
            filter = new InboxOperations.EntryFilter(wanted, blank(consumer) ? null : knownConsumer(consumer),
                    blank(aggregateId) ? null : AdminInput.id("aggregate", aggregateId.strip()),
                    blank(from) ? null : instant("from", from), blank(to) ? null : instant("to", to));
            pageNumber = blank(page) ? 0 : AdminInput.number("page", page, 0, MAX_PAGE);
        } catch (IllegalArgumentException | Problem e) {
            return ConsoleFilter.html(Response.Status.BAD_REQUEST, Templates.entries(chrome("Entries", "entries"),
                    new ConsoleViews.EntriesPage(form, List.copyOf(operations.consumerNames()), statuses, List.of(), 0,
                            null, null, e.getMessage())).render());
        }
        InboxOperations.EntryPage found = operations.entries(filter, pageNumber, PAGE_SIZE);
        List<ConsoleViews.EntryRow> rows = found.items().stream().map(ConsoleResource::row).toList();
        ConsoleViews.Link previous = pageNumber == 0 ? null : pageLink(form, pageNumber - 1, "← newer");
        ConsoleViews.Link next = found.hasMore() ? pageLink(form, pageNumber + 1, "older →") : null;
        return ConsoleFilter.html(Response.Status.OK, Templates.entries(chrome("Entries", "entries"),
                new ConsoleViews.EntriesPage(form, List.copyOf(operations.consumerNames()), statuses, rows, pageNumber,
                        previous, next, null)).render());
    }

    @GET
    @Path("/entry")
    public TemplateInstance entry(@RestQuery String consumer, @RestQuery String id) {
        String name = knownConsumer(consumer);
        String messageId = input(() -> AdminInput.id("id", id));
        InboxOperations.EntryDetail detail = operations.entry(name, messageId)
                .orElseThrow(() -> new Problem(Response.Status.NOT_FOUND, "No such entry",
                        "Consumer " + name + " has no entry " + messageId + " (retention may have deleted it)."));
        InboxMessage m = detail.entry();
        String body = m.body;
        boolean isJson = false;
        try {
            JsonNode tree = json.readTree(body);
            if (tree != null && (tree.isObject() || tree.isArray())) {
                body = json.writerWithDefaultPrettyPrinter().writeValueAsString(tree);
                isJson = true;
            }
        } catch (Exception e) {
            // not JSON: shown as it came
        }
        List<ConsoleViews.KeyValue> source = List.of(kv("queue", m.sourceQueue), kv("SQS message id", m.sourceMessageId),
                kv("message group", m.sourceGroupId), kv("sent at", time(m.sourceSentAt)),
                kv("receive count", text(m.receiveCount)));
        List<ConsoleViews.KeyValue> times = List.of(kv("received", time(m.receivedAt)),
                kv("finished", time(m.processedAt)), kv("next attempt", time(m.nextAttemptAt)));
        List<ConsoleViews.AttemptRow> attempts = detail.attempts().stream().map(ConsoleResource::attempt).toList();
        return Templates.entry(chrome("Entry " + m.messageId, "entries"), new ConsoleViews.EntryDetail(row(m),
                text(m.errorText), body, isJson, m.payloadHash, source, times, attempts, deadLetter(m),
                new ConsoleViews.Link(href("/replay", "consumer", name, "id", m.messageId), "Replay…"),
                m.aggregateId == null ? null : new ConsoleViews.Link(href("/entries", "consumer", name, "aggregateId",
                        m.aggregateId, "status", "ANY"), "all entries of " + m.aggregateId)));
    }

    @GET
    @Path("/failures")
    public TemplateInstance failures(@RestQuery String consumer) {
        String name = blank(consumer) ? null : knownConsumer(consumer);
        List<ConsoleViews.GroupRow> groups = failureGroups.groups(name, MAX_GROUPS).stream().map(this::group).toList();
        return Templates.failures(chrome("Failures", "failures"), List.copyOf(operations.consumerNames()), text(name),
                groups);
    }

    @GET
    @Path("/streams")
    public TemplateInstance streams(@RestQuery String consumer) {
        String name = blank(consumer) ? null : knownConsumer(consumer);
        List<ConsoleViews.StreamRow> rows = QuarkusTransaction.requiringNew()
                .call(() -> ordering.parkedStreams(name, MAX_STREAMS)).stream().map(this::stream).toList();
        return Templates.streams(chrome("Streams", "streams"), List.copyOf(operations.consumerNames()), text(name), rows);
    }

    @GET
    @Path("/audit")
    public TemplateInstance audit(@RestQuery String page) {
        int number = blank(page) ? 0 : input(() -> AdminInput.number("page", page, 0, MAX_PAGE));
        AdminAudit.Page found = audit.recent(number, PAGE_SIZE);
        List<ConsoleViews.AuditRow> rows = found.entries().stream().map(e -> new ConsoleViews.AuditRow(time(e.at()),
                text(e.actor()), e.action(), text(e.consumer()), text(e.target()), e.outcome(), text(e.detail()))).toList();
        return Templates.audit(chrome("Audit", "audit"), rows,
                number == 0 ? null : new ConsoleViews.Link(href("/audit", "page", Integer.toString(number - 1)), "← newer"),
                found.hasMore() ? new ConsoleViews.Link(href("/audit", "page", Integer.toString(number + 1)), "older →") : null);
    }

    /** A console path that names no page gets a page saying so (the API's JSON 404 would answer otherwise). */
    @GET
    @Path("/{unknown: .+}")
    public TemplateInstance unknown(@RestPath String unknown) {
        throw new Problem(Response.Status.NOT_FOUND, "No such page", "The console has no page /console/" + unknown + ".");
    }

    // ------------------------------------------------------------------------------------------ actions

    @GET
    @Path("/replay")
    public TemplateInstance confirmReplay(@RestQuery String consumer, @RestQuery String id) {
        String name = knownConsumer(consumer);
        String messageId = input(() -> AdminInput.id("id", id));
        InboxMessage entry = operations.entry(name, messageId).map(InboxOperations.EntryDetail::entry)
                .orElseThrow(() -> noEntry(name, messageId));
        return Templates.confirmReplay(chrome("Replay " + messageId, "entries"), row(entry));
    }

    @POST
    @Path("/replay")
    public TemplateInstance replay(@RestForm String csrf, @RestForm String consumer, @RestForm String id) {
        ConsoleSessions.Session session = checkCsrf(csrf);
        String name = knownConsumer(consumer);
        String messageId = input(() -> AdminInput.id("id", id));
        InboxOperations.Replay replay = operations.replay(session.actor(), name, messageId)
                .orElseThrow(() -> noEntry(name, messageId));
        Outcome outcome = replay.result().outcome();
        return Templates.result(chrome("Replayed " + messageId, "entries"), new ConsoleViews.Result(
                "Replayed " + messageId, outcome != Outcome.DEAD_LETTERED && outcome != Outcome.RETRIED,
                List.of("Outcome: " + outcome.label(), "Detail: " + text(replay.result().detail()),
                        "Status now: " + text(replay.statusNow())),
                List.of(new ConsoleViews.Link(href("/entry", "consumer", name, "id", messageId), "the entry"))));
    }

    @GET
    @Path("/redrive")
    public TemplateInstance confirmRedrive(@RestQuery String consumer) {
        String name = knownConsumer(consumer);
        var settings = operations.consumer(name).orElseThrow();
        String depth;
        try {
            depth = Long.toString(operations.deadLetterDepth(name));
        } catch (RuntimeException e) {
            depth = "unknown (SQS did not answer: " + e.getMessage() + ")";
        }
        return Templates.confirmRedrive(chrome("Redrive " + settings.dlq(), "overview"), name, settings.dlq(),
                settings.queue(), depth, MAX_REDRIVE_ALL);
    }

    @POST
    @Path("/redrive")
    public Response redrive(@RestForm String csrf, @RestForm String consumer, @RestForm String scope,
            @RestForm String max) {
        ConsoleSessions.Session session = checkCsrf(csrf);
        String name = knownConsumer(consumer);
        var settings = operations.consumer(name).orElseThrow();
        int asked = "all".equals(scope) ? 0 : input(() -> AdminInput.number("max", max, 1, MAX_REDRIVE_ALL));
        String title = "Redrive of " + settings.dlq();
        try {
            // "All" is what the queue holds now: messages that fail again and return meanwhile wait for the next.
            int limit = asked > 0 ? asked : (int) Math.max(1, Math.min(MAX_REDRIVE_ALL, operations.deadLetterDepth(name)));
            int moved = operations.redrive(session.actor(), name, limit);
            return ConsoleFilter.html(Response.Status.OK, Templates.result(chrome(title, "overview"),
                    new ConsoleViews.Result(title, true, List.of("Moved " + moved + " message" + (moved == 1 ? "" : "s")
                            + " from " + settings.dlq() + " to " + settings.queue() + " (asked for up to " + limit + ")."),
                            List.of(new ConsoleViews.Link("/console", "overview"),
                                    new ConsoleViews.Link(href("/entries", "consumer", name), "entries")))).render());
        } catch (RuntimeException e) {
            return ConsoleFilter.html(Response.Status.BAD_GATEWAY, Templates.result(chrome(title, "overview"),
                    new ConsoleViews.Result(title, false, List.of("The redrive failed: " + e.getMessage()),
                            List.of(new ConsoleViews.Link("/console", "overview")))).render());
        }
    }

    @GET
    @Path("/release")
    public TemplateInstance confirmRelease(@RestQuery String consumer, @RestQuery String aggregateId) {
        String name = knownConsumer(consumer);
        String aggregate = input(() -> AdminInput.id("aggregateId", aggregateId));
        StreamOrdering.ParkedStream stream = QuarkusTransaction.requiringNew()
                .call(() -> ordering.parkedStream(name, aggregate))
                .orElseThrow(() -> new Problem(Response.Status.NOT_FOUND, "Nothing parked",
                        "Stream " + aggregate + " of " + name + " has no parked event."));
        return Templates.confirmRelease(chrome("Release " + aggregate, "streams"), stream(stream));
    }

    @POST
    @Path("/release")
    public Response release(@RestForm String csrf, @RestForm String consumer, @RestForm String aggregateId) {
        ConsoleSessions.Session session = checkCsrf(csrf);
        String name = knownConsumer(consumer);
        String aggregate = input(() -> AdminInput.id("aggregateId", aggregateId));
        String title = "Gap release of " + aggregate;
        Optional<StreamOrdering.GapRelease> release = operations.release(session.actor(), name, aggregate);
        List<ConsoleViews.Link> links = List.of(new ConsoleViews.Link(href("/streams", "consumer", name), "streams"),
                new ConsoleViews.Link(href("/entries", "consumer", name, "aggregateId", aggregate, "status", "ANY"),
                        "entries of " + aggregate));
        if (release.isEmpty()) {
            return ConsoleFilter.html(Response.Status.CONFLICT, Templates.result(chrome(title, "streams"),
                    new ConsoleViews.Result(title, false, List.of("Stream " + aggregate + " has no parked event any more."),
                            links)).render());
        }
        StreamOrdering.GapRelease r = release.get();
        return ConsoleFilter.html(Response.Status.OK, Templates.result(chrome(title, "streams"), new ConsoleViews.Result(
                title, true, List.of("Skipped sequence" + (r.skippedFrom() == r.skippedTo() ? " " + r.skippedFrom()
                        : "s " + r.skippedFrom() + " to " + r.skippedTo()) + ".",
                        "The stream was at " + r.lastBefore() + " and is now at " + r.lastAfter() + "."),
                links)).render());
    }

    @GET
    @Path("/retry-group")
    public TemplateInstance confirmRetryGroup(@RestQuery String consumer, @RestQuery String group) {
        String name = knownConsumer(consumer);
        String id = input(() -> AdminInput.id("group", group));
        FailureGroups.Group found = failureGroups.group(name, id).orElseThrow(() -> noGroup(name));
        List<ConsoleViews.EntryRow> members = failureGroups.members(name, id, MAX_GROUP_RETRY).stream()
                .map(m -> new ConsoleViews.EntryRow(name, m.messageId(), m.status(), "", "", "", 0, "", "",
                        href("/entry", "consumer", name, "id", m.messageId())))
                .toList();
        return Templates.confirmRetryGroup(chrome("Retry a failure group", "failures"), group(found), members,
                MAX_GROUP_RETRY);
    }

    @POST
    @Path("/retry-group")
    public Response retryGroup(@RestForm String csrf, @RestForm String consumer, @RestForm String group) {
        ConsoleSessions.Session session = checkCsrf(csrf);
        String name = knownConsumer(consumer);
        String id = input(() -> AdminInput.id("group", group));
        FailureGroups.Group found = failureGroups.group(name, id).orElseThrow(() -> noGroup(name));
        Map<String, Integer> outcomes = new TreeMap<>();
        int retried = 0;
        for (FailureGroups.Member member : failureGroups.members(name, id, MAX_GROUP_RETRY)) {
            Optional<InboxOperations.Replay> replay = operations.replay(session.actor(), name, member.messageId());
            if (replay.isPresent()) {
                retried++;
                outcomes.merge(replay.get().result().outcome().label(), 1, Integer::sum);
            }
        }
        audit.record(session.actor(), "retry-group", name, shortened(found.cause(), 200), "retried " + retried,
                "outcomes " + outcomes);
        List<String> lines = new ArrayList<>();
        lines.add("Retried " + retried + " entr" + (retried == 1 ? "y" : "ies") + " failing with: " + found.cause());
        outcomes.forEach((outcome, n) -> lines.add(outcome + ": " + n));
        return ConsoleFilter.html(Response.Status.OK, Templates.result(chrome("Group retried", "failures"),
                new ConsoleViews.Result("Group retried", true, lines,
                        List.of(new ConsoleViews.Link(href("/failures", "consumer", name), "failures"),
                                new ConsoleViews.Link("/console/audit", "audit")))).render());
    }

    // ------------------------------------------------------------------------------------------ errors

    @ServerExceptionMapper
    public Response problem(Problem problem) {
        return ConsoleFilter.html(problem.status, Templates.problem(request.session() == null ? null
                : chrome(problem.title, ""), problem.title, problem.getMessage(), "/console").render());
    }

    /** What JAX-RS itself refuses (a method not allowed, a body it cannot read), as a page with its status. */
    @ServerExceptionMapper
    public Response refused(WebApplicationException e) {
        Response.StatusType status = e.getResponse().getStatusInfo();
        return ConsoleFilter.html(Response.Status.fromStatusCode(status.getStatusCode()) == null
                ? Response.Status.BAD_REQUEST : Response.Status.fromStatusCode(status.getStatusCode()),
                Templates.problem(null, status.getReasonPhrase(), "The console cannot answer this request ("
                        + status.getStatusCode() + " " + status.getReasonPhrase() + ").", "/console").render());
    }

    @ServerExceptionMapper
    public Response unexpected(RuntimeException e) {
        LOG.errorf(e, "console page failed");
        return ConsoleFilter.html(Response.Status.INTERNAL_SERVER_ERROR, Templates.problem(null, "Something went wrong",
                "The page failed; the service log has the details.", "/console").render());
    }

    // ------------------------------------------------------------------------------------------ helpers

    private ConsoleViews.Chrome chrome(String title, String nav) {
        ConsoleSessions.Session session = request.session();
        return new ConsoleViews.Chrome(title, nav, session == null ? null : session.label(),
                session == null ? null : session.csrf(), time(clock.now()));
    }

    /** The session of a form's POST, if the form carries its CSRF token; a 403 page otherwise. */
    private ConsoleSessions.Session checkCsrf(String csrf) {
        ConsoleSessions.Session session = request.session();
        if (session == null || !ConsoleSessions.csrfMatches(session, csrf)) {
            LOG.warnf("console form refused: %s CSRF token", csrf == null || csrf.isEmpty() ? "no" : "a wrong");
            throw new Problem(Response.Status.FORBIDDEN, "Refused: not a form of this session",
                    "The form did not carry this session's CSRF token, so it may not have come from the console"
                            + " (or it is from a session that has ended). Nothing was changed. Go back, reload the"
                            + " page and submit it again.");
        }
        return session;
    }

    private String knownConsumer(String consumer) {
        String name = input(() -> AdminInput.id("consumer", consumer));
        if (operations.consumer(name).isEmpty()) {
            throw new Problem(Response.Status.NOT_FOUND, "No such consumer", "There is no consumer " + name + ".");
        }
        return name;
    }

    private static <T> T input(Supplier<T> check) {
        try {
            return check.get();
        } catch (IllegalArgumentException e) {
            throw new Problem(Response.Status.BAD_REQUEST, "Bad input", e.getMessage());
        }
    }

    /** An ISO-8601 instant, or what a datetime-local field sends (taken as UTC, as the page says). */
    private static Instant instant(String name, String value) {
        try {
            return AdminInput.instant(name, value.strip());
        } catch (IllegalArgumentException e) {
            try {
                return LocalDateTime.parse(value.strip()).toInstant(ZoneOffset.UTC);
            } catch (DateTimeParseException again) {
                throw e;
            }
        }
    }

    private static boolean blank(String value) {
        return value == null || value.isBlank();
    }

    private static Problem noEntry(String consumer, String messageId) {
        return new Problem(Response.Status.NOT_FOUND, "No such entry", "Consumer " + consumer + " has no entry "
                + messageId + ".");
    }

    private static Problem noGroup(String consumer) {
        return new Problem(Response.Status.NOT_FOUND, "No such failure group", "Consumer " + consumer
                + " has no failed or dead entry with that cause any more.");
    }

    private static ConsoleViews.KeyValue kv(String key, String value) {
        return new ConsoleViews.KeyValue(key, text(value));
    }

    private static ConsoleViews.EntryRow row(InboxMessage m) {
        return new ConsoleViews.EntryRow(m.consumerName, m.messageId, m.status.name(), text(m.eventType),
                text(m.aggregateId), text(m.sequenceNumber), m.attemptCount, shortened(m.errorText, 160),
                time(m.receivedAt), href("/entry", "consumer", m.consumerName, "id", m.messageId));
    }

    private static ConsoleViews.AttemptRow attempt(InboxAttempt a) {
        return new ConsoleViews.AttemptRow(a.attempt, time(a.failedAt), a.errorText, text(a.sourceMessageId),
                text(a.receiveCount));
    }

    private static final Pattern DEAD_REASON = Pattern.compile("^(invalid message|gave up after \\d+ attempts): (.*)$",
            Pattern.DOTALL);

    /**
     * The attributes the dead-letter copy was sent with (Settlement), rebuilt from the entry's record, which
     * keeps every one of them but the moment of the copy (close to "finished") and the first receive.
     */
    private static List<ConsoleViews.KeyValue> deadLetter(InboxMessage m) {
        if (m.status != InboxStatus.DEAD) {
            return List.of();
        }
        String text = text(m.errorText);
        Matcher reason = DEAD_REASON.matcher(text);
        return List.of(kv("txinbox-reason", reason.matches() ? reason.group(1) : "(replayed: see the error)"),
                kv("txinbox-error", reason.matches() ? reason.group(2) : text),
                kv("txinbox-attempts", Integer.toString(m.attemptCount)), kv("txinbox-consumer", m.consumerName),
                kv("txinbox-source-queue", m.sourceQueue), kv("txinbox-source-message-id", m.sourceMessageId),
                kv("txinbox-receive-count", text(m.receiveCount)), kv("event-id", m.messageId));
    }

    private ConsoleViews.Link pageLink(ConsoleViews.EntryFilterForm f, int page, String label) {
        return new ConsoleViews.Link(href("/entries", "consumer", f.consumer(), "status", f.status(), "aggregateId",
                f.aggregateId(), "from", f.from(), "to", f.to(), "page", Integer.toString(page)), label);
    }

    private ConsoleViews.GroupRow group(FailureGroups.Group g) {
        return new ConsoleViews.GroupRow(g.consumer(), g.id(), g.cause(), g.failed(), g.dead(), g.total(),
                time(g.firstSeen()), time(g.lastSeen()),
                g.examples().stream().map(id -> new ConsoleViews.Link(href("/entry", "consumer", g.consumer(), "id", id), id))
                        .toList(),
                new ConsoleViews.Link(href("/retry-group", "consumer", g.consumer(), "group", g.id()), "Retry all…"));
    }

    private ConsoleViews.StreamRow stream(StreamOrdering.ParkedStream s) {
        List<String> missing = s.missing().stream()
                .map(r -> r[0] == r[1] ? Long.toString(r[0]) : r[0] + "–" + r[1]).toList();
        return new ConsoleViews.StreamRow(s.consumer(), s.aggregateId(), s.lastApplied(),
                String.join(", ", s.parked().stream().map(String::valueOf).toList()), String.join(", ", missing),
                duration(Duration.between(s.oldestParkedAt(), clock.now())), time(s.oldestParkedAt()),
                new ConsoleViews.Link(href("/release", "consumer", s.consumer(), "aggregateId", s.aggregateId()),
                        "Release gap…"),
                new ConsoleViews.Link(href("/entries", "consumer", s.consumer(), "aggregateId", s.aggregateId(),
                        "status", "ANY"), "entries"));
    }

    private ConsoleViews.ConsumerCard card(String consumer, Instant now, List<ConsoleViews.Check> live,
            List<ConsoleViews.Check> ready, Map<String, Long> counts) {
        Optional<InboxStatistics.ConsumerStats> stats = statistics.latest(consumer);
        String prefix = consumer + ".";
        List<ConsoleViews.KeyValue> lagCheck = ready.stream().filter(c -> c.name().equals("inbox-lag"))
                .flatMap(c -> c.data().stream()).filter(kv -> kv.key().startsWith(prefix))
                .map(kv -> new ConsoleViews.KeyValue(kv.key().substring(prefix.length()), kv.value())).toList();
        String[] liveness = verdict(live, "consumer-loop", prefix + "down");
        String[] readiness = verdict(ready, "inbox-lag", prefix + "down");
        List<ConsoleViews.KeyValue> byStatus = new ArrayList<>();
        for (InboxStatus s : InboxStatus.values()) {
            byStatus.add(new ConsoleViews.KeyValue(s.name(), Long.toString(counts.getOrDefault(s.name(), 0L))));
        }
        List<OutcomeHistory.Minute> minutes = history.lastHour(consumer);
        List<Plot.Series> series = new ArrayList<>();
        for (Outcome outcome : Outcome.values()) {
            // Every outcome that happened in the hour, and processed always, so an idle hour still shows a line.
            if (outcome == Outcome.PROCESSED || minutes.stream().anyMatch(m -> m.count(outcome) > 0)) {
                series.add(new Plot.Series(outcome.label(), color(outcome), m -> m.count(outcome)));
            }
        }
        Plot outcomes = Plot.of("outcomes-" + consumer, "Outcomes per minute", "messages", true, now, minutes, series);
        Plot lag = Plot.of("lag-" + consumer, "Lag (highest in the minute)", "s", false, now, minutes,
                List.of(new Plot.Series("lag", "#0277bd", OutcomeHistory.Minute::maxLagSeconds)));
        var settings = operations.consumer(consumer);
        return new ConsoleViews.ConsumerCard(consumer, liveness[0], liveness[1], readiness[0], readiness[1],
                stats.map(s -> age(s.lagSeconds())).orElse("?"),
                stats.map(s -> age(s.oldestPendingAgeSeconds())).orElse("?"),
                stats.map(s -> s.backlog() == null ? "unknown" : s.backlog().toString()).orElse("?"),
                stats.map(s -> Integer.toString(s.inFlight())).orElse("?"),
                stats.map(s -> s.dlq() == null ? "unknown" : s.dlq().toString()).orElse("?"),
                settings.map(s -> s.dlq()).orElse(""),
                stats.map(s -> Long.toString(s.parked())).orElse("?"),
                stats.map(s -> s.parked() == 0 ? "" : age(s.oldestParkedAgeSeconds())).orElse(""),
                stats.map(s -> Long.toString(s.failed())).orElse("?"),
                stats.map(s -> time(s.at())).orElse(""), byStatus, lagCheck, outcomes, lag, minutes.size(),
                new ConsoleViews.Link(href("/entries", "consumer", consumer), "entries"),
                new ConsoleViews.Link(href("/redrive", "consumer", consumer), "Redrive DLQ…"),
                new ConsoleViews.Link(href("/streams", "consumer", consumer), "streams"),
                new ConsoleViews.Link(href("/failures", "consumer", consumer), "failures"));
    }

    /**
     * UP or DOWN for one consumer, and why: DOWN when the check that speaks of consumers names this one, or
     * when another check of the same kind (the database, SQS, the channel) is DOWN for everyone.
     */
    private static String[] verdict(List<ConsoleViews.Check> checks, String consumerCheck, String downKey) {
        for (ConsoleViews.Check check : checks) {
            if (check.name().equals(consumerCheck)) {
                for (ConsoleViews.KeyValue kv : check.data()) {
                    if (kv.key().equals(downKey)) {
                        return new String[] { "DOWN", consumerCheck + ": " + kv.value() };
                    }
                }
            }
        }
        List<String> down = checks.stream().filter(c -> !c.up() && !c.name().equals(consumerCheck))
                .map(ConsoleViews.Check::name).toList();
        return down.isEmpty() ? new String[] { "UP", "" } : new String[] { "DOWN", "down: " + String.join(", ", down) };
    }

    private static List<ConsoleViews.Check> checks(JsonObject payload) {
        List<ConsoleViews.Check> checks = new ArrayList<>();
        for (JsonValue value : payload.getJsonArray("checks")) {
            JsonObject check = value.asJsonObject();
            List<ConsoleViews.KeyValue> data = new ArrayList<>();
            JsonObject raw = check.getJsonObject("data");
            if (raw != null) {
                raw.forEach((k, v) -> data.add(new ConsoleViews.KeyValue(k,
                        v.getValueType() == JsonValue.ValueType.STRING ? ((jakarta.json.JsonString) v).getString()
                                : v.toString())));
            }
            checks.add(new ConsoleViews.Check(check.getString("name", "?"), check.getString("status", "?"), data));
        }
        return checks;
    }

    private static String color(Outcome outcome) {
        return switch (outcome) {
            case PROCESSED -> "#2e7d32";
            case DUPLICATE -> "#78909c";
            case CONFLICT -> "#6a1b9a";
            case STALE -> "#9e9d24";
            case PARKED -> "#0277bd";
            case REJECTED -> "#ef6c00";
            case RETRIED -> "#f9a825";
            case DEAD_LETTERED -> "#c62828";
        };
    }

    private static String client(HttpServerRequest http) {
        return http == null || http.remoteAddress() == null ? "?" : http.remoteAddress().hostAddress();
    }

    /**
     * The session cookie: HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it),
     * Secure over TLS, only for the console's paths.
     */
    private String cookie(String value, long maxAgeSeconds, HttpServerRequest http, UriInfo uri) {
        boolean secure = config.secureCookie().orElseGet(() -> (http != null && http.isSSL())
                || "https".equalsIgnoreCase(uri.getRequestUri().getScheme()));
        return ConsoleSessions.COOKIE + "=" + value + "; Path=/console; Max-Age=" + maxAgeSeconds
                + "; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "");
    }
}
