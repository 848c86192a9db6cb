ALTER TABLE callback_urls DROP COLUMN final_statuses;
