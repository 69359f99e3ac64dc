package dev.txinbox.camel;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import javax.sql.DataSource;

import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.aws2.sqs.Sqs2Constants;
import org.apache.camel.main.Main;
import org.apache.camel.processor.idempotent.jdbc.JdbcMessageIdRepository;
import org.apache.camel.spi.Synchronization;
import org.apache.camel.spring.spi.SpringTransactionPolicy;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionTemplate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The Camel baseline of bench/run: the idempotent consumer a team would write with Apache Camel, as plainly as the
 * framework allows. An aws2-sqs route (10 messages per poll, 4 concurrent consumers, deleteAfterRead), transacted()
 * through camel-spring's policy on a DataSourceTransactionManager, an idempotentConsumer on camel-sql's
 * JdbcMessageIdRepository keyed by the event's id, then one upsert of the order row through plain JDBC on the
 * transaction's connection. One transaction and one DeleteMessage per message. It keeps no per-order ordering (an
 * event swapped with its predecessor, or a re-send arriving after a later event, leaves the row in the wrong state:
 * the oracle counts those orders), parks nothing and writes no payment audit. Poison (not JSON, no event id, unknown
 * type, negative amount) is logged as handled, so deleted, and counted, as the naive consumer does.
 * <p>
 * Given an events queue, it is the <b>dual write</b> a team writes without an outbox: after the upsert, still inside
 * the transacted route, one aws2-sqs {@code SendMessage} of a small JSON event per applied message (group: the order
 * id, {@code messageGroupIdStrategy=usePropertyValue}; deduplication id: the exchange's,
 * {@code useExchangeId}). The send happens before the commit, so a change that then rolls back has still told
 * downstream, and a redelivery after a crash sends again under a new deduplication id: the cost of the same work as
 * txinbox with its relay on, without its guarantee. Without one it publishes nothing.
 * <p>
 * It tells the harness how far it is as bench's baselines do: a line {@code progress <handled> <atMillis>
 * <cpuMillis> <sqsRequests>} every 50 ms while the counts move, and one JSON summary line as it exits (its CPU, by
 * thread too, its SQS calls and its last commit). It exits once it has handled {@code expectedMessages}.
 * <p>
 * Usage: CamelConsumer endpoint queueUrl jdbcUrl [eventsQueueName] expectedMessages
 */
public final class CamelConsumer {

    private static final ObjectMapper JSON = new ObjectMapper();

    static final String SCHEMA = """
            create table if not exists orders (id text primary key, customer_id text, status text not null,
                amount bigint not null, currency text not null, paid_amount bigint, paid_at timestamptz)
            """;

    /** The event an exchange carries, parsed once. */
    record Event(String eventId, String orderId, String type, JsonNode payload) {
    }

    /** A message no handler can apply; handled (deleted) and counted. */
    static final class InvalidEvent extends RuntimeException {
        InvalidEvent(String message) {
            super(message, null, false, false);
        }
    }

    private static final AtomicLong HANDLED = new AtomicLong();
    private static final AtomicLong POISON = new AtomicLong();
    private static final AtomicLong REQUESTS = new AtomicLong();
    private static final AtomicLong LAST_COMMIT = new AtomicLong();
    private static final AtomicLong PUBLISHED = new AtomicLong();

    public static void main(String[] args) throws Exception {
        String endpoint = args[0];
        String queueUrl = args[1];
        String jdbcUrl = args[2];
        String eventsQueue = args.length > 4 ? args[3] : null;
        long expected = Long.parseLong(args[args.length - 1]);
        String queueName = queueUrl.substring(queueUrl.lastIndexOf('/') + 1);

        HikariConfig pool = new HikariConfig();
        pool.setJdbcUrl(jdbcUrl);
        pool.setUsername("postgres");
        pool.setMaximumPoolSize(5); // the 4 consumers, and one to spare
        HikariDataSource dataSource = new HikariDataSource(pool);
        try (Connection db = dataSource.getConnection(); Statement ddl = db.createStatement()) {
            ddl.execute(SCHEMA);
        }
        DataSourceTransactionManager transactions = new DataSourceTransactionManager(dataSource);
        JdbcMessageIdRepository processed = new JdbcMessageIdRepository(dataSource, new TransactionTemplate(transactions),
                "orders");

        SqsClient sqs = SqsClient.builder()
                .endpointOverride(URI.create(endpoint))
                .region(Region.EU_WEST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("bench", "bench")))
                .httpClientBuilder(ApacheHttpClient.builder().maxConnections(8).socketTimeout(Duration.ofSeconds(30)))
                .overrideConfiguration(c -> c.addExecutionInterceptor(new ExecutionInterceptor() {
                    @Override
                    public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
                        REQUESTS.incrementAndGet();
                    }

                    @Override
                    public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
                        REQUESTS.incrementAndGet();
                    }
                }))
                .build();

        Main main = new Main();
        main.bind("sqs", sqs);
        main.bind("required", new SpringTransactionPolicy(transactions));
        main.configure().addRoutesBuilder(new RouteBuilder() {
            @Override
            public void configure() {
                onException(InvalidEvent.class).handled(true).process(e -> POISON.incrementAndGet());
                var route = from("aws2-sqs:" + queueName + "?amazonSQSClient=#sqs&maxMessagesPerPoll=10"
                        + "&concurrentConsumers=4&deleteAfterRead=true&waitTimeSeconds=1&greedy=true")
                        .routeId("orders")
                        .process(CamelConsumer::countOnCompletion)
                        .transacted("required")
                        .process(CamelConsumer::parse)
                        .idempotentConsumer(header("eventId"), processed)
                        .process(e -> upsert(dataSource, e.getProperty("event", Event.class)));
                if (eventsQueue != null) {
                    route.process(CamelConsumer::downstreamEvent)
                            .to("aws2-sqs:" + eventsQueue + "?amazonSQSClient=#sqs&autoCreateQueue=false"
                                    + "&messageGroupIdStrategy=usePropertyValue"
                                    + "&messageDeduplicationIdStrategy=useExchangeId")
                            .process(e -> PUBLISHED.incrementAndGet());
                }
            }
        });
        Thread camel = new Thread(() -> {
            try {
                main.run();
            } catch (Exception e) {
                e.printStackTrace();
                System.exit(3);
            }
        }, "camel-main");
        camel.start();

        report();
        while (HANDLED.get() < expected) {
            Thread.sleep(20);
        }
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("cpuMillis", ownCpuMillis());
        summary.put("handled", HANDLED.get());
        summary.put("poison", POISON.get());
        summary.put("sqsRequests", REQUESTS.get());
        summary.put("lastCommitMillis", LAST_COMMIT.get());
        summary.put("published", PUBLISHED.get());
        summary.put("threadCpuMillis", threadCpuMillis());
        System.out.println(JSON.writeValueAsString(summary));
        System.out.flush();
        Thread.sleep(1000); // the harness reads the CPU of this consumer's PostgreSQL backends while they are there
        Runtime.getRuntime().halt(0); // every message is handled; nothing left to shut down gracefully for
    }

    /**
     * Counts the exchange once it completed: its transaction committed (or it was a duplicate or poison, handled)
     * and the consumer's DeleteMessage, registered before this, has been answered.
     */
    private static void countOnCompletion(Exchange exchange) {
        exchange.getExchangeExtension().addOnCompletion(new Synchronization() {
            @Override
            public void onComplete(Exchange e) {
                HANDLED.incrementAndGet();
                LAST_COMMIT.accumulateAndGet(System.currentTimeMillis(), Math::max);
            }

            @Override
            public void onFailure(Exchange e) {
                // rolled back and left in the queue: it comes back after the visibility timeout
            }
        });
    }

    private static void parse(Exchange exchange) {
        JsonNode body;
        try {
            body = JSON.readTree(exchange.getMessage().getBody(String.class));
        } catch (IOException e) {
            throw new InvalidEvent("not JSON");
        }
        if (!body.hasNonNull("eventId") || !body.hasNonNull("aggregateId") || !body.hasNonNull("type")) {
            throw new InvalidEvent("no event id, order or type");
        }
        Event event = new Event(body.get("eventId").asText(), body.get("aggregateId").asText(),
                body.get("type").asText(), body.path("payload"));
        switch (event.type()) {
            case "ORDER_CREATED", "ORDER_PAID" -> {
                if (event.payload().path("amount").asLong(-1) < 0) {
                    throw new InvalidEvent("negative amount");
                }
            }
            case "ORDER_SHIPPED", "ORDER_CANCELLED" -> {
            }
            default -> throw new InvalidEvent("unknown type " + event.type());
        }
        exchange.getMessage().setHeader("eventId", event.eventId());
        exchange.setProperty("event", event);
    }

    /**
     * The event downstream hears of an applied message: a small JSON body, grouped by its order (the property that
     * {@code usePropertyValue} reads). The incoming headers stay (the consumer's delete reads the receipt handle from
     * them; the producer sends none of Camel's own), but for the event id, which would go out as an attribute.
     */
    private static void downstreamEvent(Exchange exchange) throws IOException {
        Event event = exchange.getProperty("event", Event.class);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("eventId", event.eventId());
        body.put("type", event.type());
        body.put("aggregateId", event.orderId());
        body.put("payload", event.payload());
        exchange.getMessage().removeHeader("eventId");
        exchange.getMessage().setBody(JSON.writeValueAsString(body));
        exchange.setProperty(Sqs2Constants.MESSAGE_GROUP_ID_PROPERTY, event.orderId());
    }

    /** One upsert of the order row per event, on the route's transaction. */
    private static void upsert(DataSource dataSource, Event event) throws SQLException {
        JsonNode p = event.payload();
        Connection db = DataSourceUtils.getConnection(dataSource);
        try {
            switch (event.type()) {
                case "ORDER_CREATED" -> update(db, "insert into orders (id, customer_id, status, amount, currency)"
                        + " values (?, ?, 'CREATED', ?, ?) on conflict (id) do update set customer_id = excluded.customer_id,"
                        + " status = excluded.status, amount = excluded.amount, currency = excluded.currency",
                        event.orderId(), p.path("customerId").asText(), p.path("amount").asLong(), p.path("currency").asText());
                case "ORDER_PAID" -> update(db, "insert into orders (id, status, amount, currency, paid_amount, paid_at)"
                        + " values (?, 'PAID', ?, ?, ?, now()) on conflict (id) do update set status = excluded.status,"
                        + " paid_amount = excluded.paid_amount, paid_at = excluded.paid_at",
                        event.orderId(), p.path("amount").asLong(), p.path("currency").asText(), p.path("amount").asLong());
                default -> update(db, "insert into orders (id, status, amount, currency) values (?, ?, 0, '')"
                        + " on conflict (id) do update set status = excluded.status",
                        event.orderId(), event.type().equals("ORDER_SHIPPED") ? "SHIPPED" : "CANCELLED");
            }
        } finally {
            DataSourceUtils.releaseConnection(db, dataSource);
        }
    }

    private static void update(Connection db, String sql, Object... values) throws SQLException {
        try (PreparedStatement statement = db.prepareStatement(sql)) {
            for (int i = 0; i < values.length; i++) {
                statement.setObject(i + 1, values[i]);
            }
            statement.executeUpdate();
        }
    }

    // ------------------------------------------------------------------ what the harness reads

    /** Prints a progress line from a daemon thread whenever the counts moved, at most every 50 ms. */
    private static void report() {
        Thread reporter = new Thread(() -> {
            long lastHandled = -1;
            long lastRequests = -1;
            while (true) {
                long h = HANDLED.get();
                long r = REQUESTS.get();
                if (h != lastHandled || r != lastRequests) {
                    System.out.println("progress " + h + " " + System.currentTimeMillis() + " " + ownCpuMillis() + " " + r);
                    lastHandled = h;
                    lastRequests = r;
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "progress");
        reporter.setDaemon(true);
        reporter.start();
    }

    private static double ownCpuMillis() {
        return ManagementFactory.getPlatformMXBean(com.sun.management.OperatingSystemMXBean.class).getProcessCpuTime()
                / 1e6;
    }

    /** This process's CPU by live thread, in ms, keyed {@code name/tid} with the name's digits as N (as the harness keys it). */
    private static Map<String, Double> threadCpuMillis() {
        Map<String, Double> byThread = new TreeMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    String[] rest = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    double ms = (Long.parseLong(rest[11]) + Long.parseLong(rest[12])) * 10.0;
                    String name = Files.readString(task.resolve("comm")).trim().replaceAll("[0-9]+", "N");
                    byThread.put(name + "/" + task.getFileName(), ms);
                } catch (IOException | RuntimeException e) {
                    // the thread is gone
                }
            }
        } catch (IOException e) {
            // no /proc
        }
        return byThread;
    }
}
