#!/usr/bin/env bash
# Create the broker accounts of a tournament: table-1 .. table-N (one per box) and
# tournament (the service), each with its own random password.
#   make-passwords.sh PASSWD_FILE OUT_DIR TABLES
# PASSWD_FILE: mosquitto's password file (hashed by mosquitto_passwd, replaced);
# OUT_DIR/<account>.password: each account's password, mode 0600, to copy onto the box or the
# service machine (the [tournament] password_file). No password appears on a command line.
set -euo pipefail
if [ $# -ne 3 ] || ! [[ "$3" =~ ^[1-9][0-9]{0,2}$ ]]; then
  echo "usage: $0 PASSWD_FILE OUT_DIR TABLES(1-999)" >&2
  exit 2
fi
passwd_file="$1" out="$2" tables="$3"
command -v mosquitto_passwd >/dev/null || { echo "$0: mosquitto_passwd not found (apt-get install mosquitto)" >&2; exit 1; }
umask 077
mkdir -p "$out"
tmp="$(mktemp "${passwd_file}.XXXXXX")"
trap 'rm -f "$tmp"' EXIT
for account in tournament $(seq -f 'table-%g' 1 "$tables"); do
  password="$(head -c 18 /dev/urandom | base64 | tr '+/' '-_')"
  printf '%s\n' "$password" > "$out/$account.password"
  printf '%s:%s\n' "$account" "$password" >> "$tmp"
done
mosquitto_passwd -U "$tmp"  # hashes the plain-text lines in place
mv "$tmp" "$passwd_file"
trap - EXIT
if id mosquitto >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  chown mosquitto "$passwd_file"
fi
echo "$tables table accounts and the tournament account written to $passwd_file; passwords in $out/"
