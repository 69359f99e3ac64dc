package dev.txinbox.support;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real PgBouncer (Debian's, 1.18; {@code dev/test-setup} installs it) in front of the local PostgreSQL, with one
 * database in each pool mode: {@code <database>_session} and {@code <database>_transaction}. Started as a process of
 * the test; as root it runs as {@code postgres}, since PgBouncer refuses to run as root.
 */
public final class PgBouncer implements AutoCloseable {

    private static final Path BINARY = Path.of("/usr/sbin/pgbouncer");

    private final Process process;
    private final int port;
    private final String database;

    private PgBouncer(Process process, int port, String database) {
        this.process = process;
        this.port = port;
        this.database = database;
    }

    public static PgBouncer start(String database) throws Exception {
        if (!Files.isExecutable(BINARY)) {
            throw new IllegalStateException("PgBouncer is missing (" + BINARY + "); install it with: apt-get install -y"
                    + " pgbouncer (dev/test-setup does, as root)");
        }
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        // Under the system temp directory: PgBouncer runs as postgres, which may not reach into the checkout.
        Path dir = Files.createTempDirectory("txinbox-pgbouncer");
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path users = dir.resolve("users.txt");
        Files.writeString(users, "\"txinbox\" \"\"\n\"postgres\" \"\"\n");
        String server = "host=127.0.0.1 port=5432 dbname=" + database;
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, String.join("\n",
                "[databases]",
                database + "_session = " + server + " pool_mode=session",
                database + "_transaction = " + server + " pool_mode=transaction",
                "[pgbouncer]",
                "listen_addr = 127.0.0.1",
                "listen_port = " + port,
                "unix_socket_dir =",
                "auth_type = trust",
                "auth_file = " + users,
                "logfile = " + dir.resolve("pgbouncer.log"),
                // Two services in session mode: each holds a server connection per client connection.
                "max_client_conn = 300",
                "default_pool_size = 45",
                // The JDBC driver sends it at start-up; PgBouncer refuses what it does not know unless told.
                "ignore_startup_parameters = extra_float_digits,options",
                ""));
        List<String> command = new ArrayList<>(List.of(BINARY.toString()));
        if ("root".equals(System.getProperty("user.name"))) {
            command.addAll(List.of("-u", "postgres"));
        }
        command.add(ini.toString());
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(new File(dir.toFile(), "pgbouncer.out")).start();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!listening(port)) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                process.destroyForcibly();
                throw new IllegalStateException("PgBouncer did not start; see " + dir);
            }
            Thread.sleep(100);
        }
        return new PgBouncer(process, port, database);
    }

    /** The JDBC URL of the database through the pooler in {@code mode} ({@code session} or {@code transaction}). */
    public String url(String mode) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "_" + mode;
    }

    private static boolean listening(int port) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() throws Exception {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
