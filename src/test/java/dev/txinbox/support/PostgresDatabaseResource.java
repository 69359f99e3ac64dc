package dev.txinbox.support;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * Creates the test role and database in the local PostgreSQL if they are missing, so that the test
 * command needs nothing but a running server (as dev/postgres-setup does for the local run). Flyway
 * then cleans and migrates the database at every start. {@code TXINBOX_TEST_DB} names another database
 * (default {@code txinbox_test}), so that two checkouts can run their tests side by side.
 */
public class PostgresDatabaseResource implements QuarkusTestResourceLifecycleManager {

    @Override
    public Map<String, String> start() {
        String host = System.getenv().getOrDefault("PGHOST", "127.0.0.1");
        String port = System.getenv().getOrDefault("PGPORT", "5432");
        String admin = System.getenv().getOrDefault("PGUSER", "postgres");
        String database = System.getenv().getOrDefault("TXINBOX_TEST_DB", "txinbox_test");
        if (!database.matches("[a-z_][a-z0-9_]*")) {
            throw new IllegalArgumentException("TXINBOX_TEST_DB must be a plain lower-case name: " + database);
        }
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://" + host + ":" + port + "/postgres", admin,
                System.getenv("PGPASSWORD")); Statement s = c.createStatement()) {
            if (!s.executeQuery("select 1 from pg_roles where rolname = 'txinbox'").next()) {
                s.execute("create role txinbox login password 'txinbox'");
            }
            if (!s.executeQuery("select 1 from pg_database where datname = '" + database + "'").next()) {
                s.execute("create database " + database + " owner txinbox");
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot prepare the test database in PostgreSQL at " + host + ":" + port
                    + " as " + admin + " (is it running? see dev/postgres-setup): " + e.getMessage(), e);
        }
        return Map.of("quarkus.datasource.jdbc.url", "jdbc:postgresql://" + host + ":" + port + "/" + database);
    }

    @Override
    public void stop() {
    }
}
