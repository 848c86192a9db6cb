-- Which final statuses a callback URL receives (issue 30): null = every final
-- status; deliveries are made only for a matching status.
ALTER TABLE callback_urls ADD COLUMN final_statuses smallint[];
