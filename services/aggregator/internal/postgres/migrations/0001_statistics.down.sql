DROP TABLE progress, rates, providers, merchants, stats_month, stats_day, stats_hour, tx_state;
