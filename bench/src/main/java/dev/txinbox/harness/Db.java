package dev.txinbox.harness;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** The local PostgreSQL, as the harness sees it: superuser look-ups and throwaway databases. */
public final class Db {

    public static final String SERVER = "jdbc:postgresql://127.0.0.1:5432/";
    /** The role the service connects as (its application.properties); it owns the run's databases. */
    public static final String SERVICE_ROLE = "txinbox";

    private Db() {
    }

    public static String url(String database) {
        return SERVER + database;
    }

    /** A connection as the superuser {@code postgres} (the local cluster trusts it): how the harness reads and writes. */
    public static Connection connect(String url) throws SQLException {
        return DriverManager.getConnection(url, "postgres", "");
    }

    /** Drops and recreates {@code name}, owned by the service's role; the service's Flyway fills it. */
    public static void reset(String name) throws SQLException {
        try (Connection db = connect(url("postgres"));
                Statement s = db.createStatement()) {
            s.execute("drop database if exists " + name + " with (force)");
            s.execute("create database " + name + " owner " + SERVICE_ROLE);
        }
    }

    /** The orders consumer's PROCESSED inbox rows in {@code database}; -1 while PostgreSQL does not answer (a fault may have stopped it). */
    public static long processedRows(String database) {
        try {
            return queryLong(url(database), "select count(*) from inbox_messages where consumer_name = 'orders'"
                    + " and status = 'PROCESSED'");
        } catch (SQLException e) {
            return -1;
        }
    }

    /**
     * Statistics for every table of {@code database}, as autovacuum keeps them on a server that runs it. This one
     * runs without autovacuum, and a service whose tables were never analyzed keeps the plans it made for empty
     * tables: a window would then measure sequential scans no production server makes.
     */
    public static void analyze(String database) throws SQLException {
        try (Connection db = connect(url(database)); Statement s = db.createStatement()) {
            s.execute("analyze");
        }
    }

    public static long queryLong(String url, String sql) throws SQLException {
        return Long.parseLong(queryString(url, sql));
    }

    public static String queryString(String url, String sql) throws SQLException {
        try (Connection db = connect(url);
                Statement s = db.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
