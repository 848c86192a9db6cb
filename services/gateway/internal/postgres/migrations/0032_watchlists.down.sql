DROP TABLE IF EXISTS watchlist_alerts;
DROP TABLE IF EXISTS watchlists;
