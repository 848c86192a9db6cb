DROP TABLE collab_credentials;
