package dev.txinbox.ops.console;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

import io.quarkus.qute.TemplateData;

/**
 * A line plot of per-minute values over the last hour, as numbers an SVG template can place: no JavaScript
 * draws it, the browser only renders it. Each sampled minute is a point (a circle with its minute and value,
 * also as a tooltip); a minute nobody sampled breaks the line.
 */
@TemplateData
public record Plot(String id, String title, String unit, int width, int height, List<Line> lines, List<Tick> yTicks,
        List<Tick> xTicks, Frame frame) {

    static final int WIDTH = 620, HEIGHT = 220, LEFT = 48, RIGHT = 24, TOP = 12, BOTTOM = 30;

    /** The plotting area. */
    @TemplateData
    public record Frame(int left, int top, int right, int bottom, int yLabelX, int xLabelY) {
    }

    /** One series: its SVG path and its points. */
    @TemplateData
    public record Line(String name, String color, String path, List<Point> points, String summary) {
    }

    @TemplateData
    public record Point(String x, String y, String minute, String value) {
    }

    @TemplateData
    public record Tick(String position, String label) {
    }

    /** How one series reads its value from a minute. */
    public record Series(String name, String color, ToDoubleFunction<OutcomeHistory.Minute> value) {
    }

    private static final DateTimeFormatter HOUR_MINUTE = DateTimeFormatter.ofPattern("HH:mm", Locale.ROOT)
            .withZone(ZoneOffset.UTC);

    /**
     * Plots {@code series} over the hour that ends with the minute of {@code now}; {@code counts} says whether
     * the values add up (messages) or not (a lag), for the legend.
     */
    public static Plot of(String id, String title, String unit, boolean counts, Instant now,
            List<OutcomeHistory.Minute> minutes, List<Series> series) {
        long last = OutcomeHistory.minuteOf(now), first = last - OutcomeHistory.MINUTES + 1;
        double max = 0;
        for (Series s : series) {
            for (OutcomeHistory.Minute m : minutes) {
                max = Math.max(max, s.value().applyAsDouble(m));
            }
        }
        double top = niceCeiling(max);
        double plotWidth = WIDTH - LEFT - RIGHT, plotHeight = HEIGHT - TOP - BOTTOM;
        List<Line> lines = new ArrayList<>();
        for (Series s : series) {
            StringBuilder path = new StringBuilder();
            List<Point> points = new ArrayList<>();
            long previous = Long.MIN_VALUE;
            double total = 0, highest = 0;
            for (OutcomeHistory.Minute m : minutes) {
                long minute = OutcomeHistory.minuteOf(m.start());
                double value = s.value().applyAsDouble(m);
                total += value;
                highest = Math.max(highest, value);
                double x = LEFT + (minute - first) * plotWidth / (OutcomeHistory.MINUTES - 1);
                double y = TOP + plotHeight - value / top * plotHeight;
                path.append(minute == previous + 1 ? " L" : " M").append(number(x)).append(',').append(number(y));
                previous = minute;
                points.add(new Point(number(x), number(y), m.start().toString(), value(value)));
            }
            lines.add(new Line(s.name(), s.color(), path.toString().trim(), points,
                    counts ? value(total) + " in the hour" : "at most " + value(highest) + " " + unit));
        }
        List<Tick> yTicks = new ArrayList<>();
        // 2 × 10^k splits into steps of 0.5 × 10^k; 1 and 5 × 10^k into fifths: round labels either way.
        int steps = Math.round(top / Math.pow(10, Math.floor(Math.log10(top)))) == 2 ? 4 : 5;
        for (int i = 0; i <= steps; i++) {
            yTicks.add(new Tick(number(TOP + plotHeight - i * plotHeight / steps), value(top * i / steps)));
        }
        List<Tick> xTicks = new ArrayList<>();
        for (int i = 0; i <= 6; i++) {
            long minute = first + i * (OutcomeHistory.MINUTES - 1) / 6;
            xTicks.add(new Tick(number(LEFT + (minute - first) * plotWidth / (OutcomeHistory.MINUTES - 1)),
                    HOUR_MINUTE.format(Instant.ofEpochSecond(minute * 60))));
        }
        return new Plot(id, title, unit, WIDTH, HEIGHT, lines, yTicks, xTicks,
                new Frame(LEFT, TOP, WIDTH - RIGHT, HEIGHT - BOTTOM, LEFT - 6, HEIGHT - BOTTOM + 18));
    }

    /** 1, 2 or 5 times a power of ten, at least the value (and at least 1). */
    static double niceCeiling(double value) {
        if (value <= 1) {
            return 1;
        }
        double power = Math.pow(10, Math.floor(Math.log10(value)));
        for (double step : new double[] { 1, 2, 5, 10 }) {
            if (step * power >= value) {
                return step * power;
            }
        }
        return 10 * power;
    }

    private static String number(double value) {
        return String.format(Locale.ROOT, "%.1f", value);
    }

    private static String value(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : String.format(Locale.ROOT, "%.1f", value);
    }
}
