SELECT version FROM api_releases WHERE source = $1;
