DROP TABLE IF EXISTS callback_url_headers;
