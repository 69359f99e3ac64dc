package dev.txinbox.sql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import org.flywaydb.core.Flyway;

import dev.txinbox.config.TxinboxConfig;
import io.quarkus.runtime.StartupEvent;

/**
 * Refuses to start where a connection pooler between txinbox and PostgreSQL would break what txinbox counts on.
 * A pooler in transaction mode (PgBouncer's {@code pool_mode=transaction}) gives each transaction whichever server
 * connection is free, and what a session holds stays on the server connection it was taken on:
 * <ul>
 * <li>the outbox relay's partition locks (session advisory locks) and its LISTEN would not be the relay's: another
 * client handed that server connection takes a partition lock again (advisory locks are re-entrant within a
 * session), and two relays send one partition. The relay needs a connection that keeps its session: a direct one
 * ({@code txinbox.outbox.relay.jdbc-url}) or a pooler in session mode;</li>
 * <li>the JDBC driver's server-side prepared statements (after {@code prepareThreshold} uses) would be missing on the
 * next server connection: PgBouncer before 1.21 does not carry them, so the datasource's URL needs
 * {@code prepareThreshold=0}.</li>
 * </ul>
 * RDS Proxy pins a session that takes an advisory lock, so it keeps the relay's session (without pooling it). The
 * check itself ({@link #keepsSession}): a probe lock taken on one connection must not be takeable from another.
 * <p>
 * The schema is migrated here, right after the check ({@code quarkus.flyway.migrate-at-start} is off): Flyway through
 * such a pooler fails first, with the driver's "prepared statement S_1 already exists", which names neither the
 * pooler nor the setting.
 */
@ApplicationScoped
public class SessionCheck {

    /** Advisory lock class of the probe: "txsp". */
    static final int PROBE_KEY = 0x74787370;
    private static final int TRIES = 3;

    private final TxinboxConfig config;
    private final String datasourceUrl;
    private final Optional<String> user;
    private final Optional<String> password;
    private final Optional<String> prepareThreshold;

    public SessionCheck(TxinboxConfig config, @ConfigProperty(name = "quarkus.datasource.jdbc.url") String datasourceUrl,
            @ConfigProperty(name = "quarkus.datasource.username") Optional<String> user,
            @ConfigProperty(name = "quarkus.datasource.password") Optional<String> password,
            @ConfigProperty(name = "quarkus.datasource.jdbc.additional-jdbc-properties.prepareThreshold")
            Optional<String> prepareThreshold) {
        this.config = config;
        this.prepareThreshold = prepareThreshold;
        this.datasourceUrl = datasourceUrl;
        this.user = user;
        this.password = password;
    }

    /** Before anything else uses the database: the channels and the relay start later. */
    void checkThenMigrate(@Observes @Priority(2) StartupEvent started, Flyway flyway) throws SQLException {
        check();
        flyway.migrate();
    }

    void check() throws SQLException {
        List<String> problems = new ArrayList<>();
        boolean datasourceKept = keepsSession(() -> connect(datasourceUrl));
        if (!datasourceKept && !unnamedStatements()) {
            problems.add("the datasource's connections go through a pooler in transaction mode (such as PgBouncer's"
                    + " pool_mode=transaction), which loses the JDBC driver's server-side prepared statements"
                    + " (PgBouncer before 1.21): add prepareThreshold=0 to QUARKUS_DATASOURCE_JDBC_URL");
        }
        if (config.outbox().relay().enabled()) {
            String relayUrl = relayUrl();
            boolean relayKept = relayUrl.equals(datasourceUrl) ? datasourceKept : keepsSession(() -> connect(relayUrl));
            if (!relayKept) {
                problems.add("the outbox relay's connection to PostgreSQL does not keep its session (a pooler in"
                        + " transaction mode between them, such as PgBouncer's pool_mode=transaction): its partition"
                        + " locks and LISTEN would not hold, and two relays could send one partition. Give the relay a"
                        + " direct connection with TXINBOX_OUTBOX_RELAY_JDBC_URL (or pool in session mode)");
            }
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException("txinbox cannot start:\n - " + String.join("\n - ", problems));
        }
    }

    /** Whether the driver is told to name no server-side statement, in the URL or as an additional property. */
    private boolean unnamedStatements() {
        return datasourceUrl.matches(".*[?&]prepareThreshold=0(&.*)?$")
                || prepareThreshold.filter(value -> value.strip().equals("0")).isPresent();
    }

    /** The URL of the relay's own connections. */
    public String relayUrl() {
        return config.outbox().relay().jdbcUrl().orElse(datasourceUrl);
    }

    /** A connection of its own (not the datasource's pool) to {@code url}, with the datasource's credentials. */
    public Connection connect(String url, String applicationName) throws SQLException {
        Properties properties = new Properties();
        user.ifPresent(u -> properties.setProperty("user", u));
        password.ifPresent(p -> properties.setProperty("password", p));
        properties.setProperty("ApplicationName", applicationName);
        properties.setProperty("tcpKeepAlive", "true");
        // A dead server must not hang the caller forever.
        properties.setProperty("socketTimeout", "60");
        properties.setProperty("connectTimeout", "10");
        Connection connection = new org.postgresql.Driver().connect(url, properties);
        if (connection == null) {
            throw new SQLException("not a PostgreSQL URL: " + url);
        }
        return connection;
    }

    private Connection connect(String url) throws SQLException {
        return connect(url, "txinbox-session-check");
    }

    /** Opens a connection. */
    @FunctionalInterface
    public interface Connector {
        Connection open() throws SQLException;
    }

    /**
     * Whether connections opened by {@code connector} keep their session: one takes a probe advisory lock and keeps
     * it; others, opened one after another, must never get the same lock, and the first must stay on its server
     * process. Through a pooler in transaction mode the next client is handed the server connection just freed
     * (PgBouncer reuses the last one by default), lock and all, and takes the lock again.
     */
    public static boolean keepsSession(Connector connector) throws SQLException {
        int probe = ThreadLocalRandom.current().nextInt(1, Integer.MAX_VALUE);
        try (Connection holder = connector.open()) {
            int pid;
            try (Statement s = holder.createStatement();
                    ResultSet rs = s.executeQuery("select pg_try_advisory_lock(" + PROBE_KEY + ", " + probe
                            + "), pg_backend_pid()")) {
                rs.next();
                if (!rs.getBoolean(1)) {
                    return true; // another check's probe: not this one's to judge
                }
                pid = rs.getInt(2);
            }
            boolean kept = true;
            for (int i = 0; i < TRIES && kept; i++) {
                try (Connection other = connector.open(); Statement s = other.createStatement();
                        ResultSet rs = s.executeQuery("select pg_try_advisory_lock(" + PROBE_KEY + ", " + probe + ")")) {
                    rs.next();
                    if (rs.getBoolean(1)) {
                        kept = false;
                        s.execute("select pg_advisory_unlock(" + PROBE_KEY + ", " + probe + ")");
                    }
                }
                try (Statement s = holder.createStatement(); ResultSet rs = s.executeQuery("select pg_backend_pid()")) {
                    rs.next();
                    kept &= rs.getInt(1) == pid;
                }
            }
            try (Statement s = holder.createStatement()) {
                s.execute("select pg_advisory_unlock(" + PROBE_KEY + ", " + probe + ")");
            }
            return kept;
        }
    }
}
