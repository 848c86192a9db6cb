DROP TABLE activity_log;
