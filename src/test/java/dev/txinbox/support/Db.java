package dev.txinbox.support;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;

/** Plain SQL for assertions: tests look at the tables, not at the service's own objects. */
@ApplicationScoped
public class Db {

    private final DataSource dataSource;

    public Db(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    public List<Map<String, Object>> rows(String sql, Object... args) {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            List<Map<String, Object>> rows = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                ResultSetMetaData md = rs.getMetaData();
                while (rs.next()) {
                    Map<String, Object> row = new LinkedHashMap<>();
                    for (int col = 1; col <= md.getColumnCount(); col++) {
                        row.put(md.getColumnLabel(col), rs.getObject(col));
                    }
                    rows.add(row);
                }
            }
            return rows;
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    public Map<String, Object> row(String sql, Object... args) {
        List<Map<String, Object>> rows = rows(sql, args);
        if (rows.size() != 1) {
            throw new AssertionError("expected one row, got " + rows.size() + " for " + sql + " " + List.of(args));
        }
        return rows.get(0);
    }

    public long count(String sql, Object... args) {
        return ((Number) row(sql, args).values().iterator().next()).longValue();
    }

    /** The status of one inbox entry, or null while there is none. */
    public String inboxStatus(String consumer, String eventId) {
        List<Map<String, Object>> rows = rows(
                "select status from inbox_messages where consumer_name = ? and message_id = ?", consumer, eventId);
        return rows.isEmpty() ? null : (String) rows.get(0).get("status");
    }

    public void execute(String sql) {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.execute();
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }
}
