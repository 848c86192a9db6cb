DROP TABLE stats_cash;
