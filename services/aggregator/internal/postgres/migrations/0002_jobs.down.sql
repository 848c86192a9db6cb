DROP TABLE job_notifications, job_runs, jobs;
