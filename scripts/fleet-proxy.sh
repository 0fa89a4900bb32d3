#!/usr/bin/env bash
# A fleet's shared cache and request budget in front of the weather providers: Debian's nginx, run in
# the foreground with a configuration this script writes into DIR (docs/fleet.md).
#
#   scripts/fleet-proxy.sh --listen HOST:PORT --dir DIR [--cache-ttl 10m]
#       [--openweathermap URL --key-file FILE --requests-per-minute N [--burst B]]
#       [--open-meteo URL --open-meteo-requests-per-minute N [--open-meteo-requests-per-day N]]
#       [--open-meteo-geocoding URL] [--air-quality URL] [--nws URL]
#   scripts/fleet-proxy.sh --site-config --listen HOST:PORT [the same upstream options, no --key-file]
#
# Each upstream is under its own path prefix (/openweathermap/, /open-meteo/, /open-meteo-geocoding/,
# /air-quality/, /nws/): a device sets e.g. openweathermap.base_url = "http://PROXY:PORT/openweathermap"
# and any placeholder as its key. The proxy caches on path and query without the key for --cache-ttl,
# lets one request per cache key through at a time (the others wait for it), serves a stale answer while
# the provider fails, spends one budget per provider on cache misses only (429 with Retry-After and a
# body in the provider's shape when it is spent), adds the real key from --key-file, and marks every
# answer with X-Cache-Status. DIR gets nginx.conf, fleet.conf (the shared part), the logs (access.log:
# every device request; upstream.log: every cache miss and what the budget and the provider said;
# error.log), the cache and nginx's temporary files. The key is copied into DIR/keys/ (mode 0600) while
# nginx runs and removed when it stops.
#
# It needs no root: nginx runs as the user who starts it, on any free port. Run as root, nginx's workers
# run as DIR's owner. SIGTERM, SIGINT or SIGHUP stop nginx (and so everything this script started).
# --site-config prints the shared part for a system nginx instead (packaging/nginx/weatherd-fleet.conf is
# its output for the example there) and starts nothing. NGINX names another nginx binary.
set -euo pipefail

prog=${0##*/}
usage() {
    sed -n '4,9s/^# \{0,1\}//p' "$0" >&2
    exit 2
}
die() {
    echo "$prog: $*" >&2
    exit 2
}

listen= dir= cache_ttl=10m site=
owm_url= key_file= owm_rpm= owm_burst=
om_url= om_rpm= om_rpd= om_geocoding_url= air_quality_url= nws_url=
while [[ $# -gt 0 ]]; do
    option=$1
    case $option in
        --site-config) site=1; shift; continue ;;
        -h | --help) usage ;;
        --*) [[ $# -ge 2 ]] || die "$option needs a value" ;;
        *) die "unexpected argument $option (see --help)" ;;
    esac
    value=$2
    shift 2
    case $option in
        --listen) listen=$value ;;
        --dir) dir=$value ;;
        --cache-ttl) cache_ttl=$value ;;
        --openweathermap) owm_url=$value ;;
        --key-file) key_file=$value ;;
        --requests-per-minute) owm_rpm=$value ;;
        --burst) owm_burst=$value ;;
        --open-meteo) om_url=$value ;;
        --open-meteo-requests-per-minute) om_rpm=$value ;;
        --open-meteo-requests-per-day) om_rpd=$value ;;
        --open-meteo-geocoding) om_geocoding_url=$value ;;
        --air-quality) air_quality_url=$value ;;
        --nws) nws_url=$value ;;
        *) die "unknown option $option (see --help)" ;;
    esac
done

# --- Checking the options -------------------------------------------------------------------------

[[ -n $listen ]] || die "--listen HOST:PORT is required"
if [[ $listen =~ ^(\[[0-9A-Fa-f:.]+\]|[0-9.]+|\*|localhost):([0-9]+)$ ]]; then
    listen_host=${BASH_REMATCH[1]} listen_port=${BASH_REMATCH[2]}
else
    die "--listen $listen: expected ADDRESS:PORT (127.0.0.1:8090, 0.0.0.0:8090, [::1]:8090, *:8090)"
fi
((listen_port >= 1 && listen_port <= 65535)) || die "--listen $listen: the port is not in 1...65535"
# Cache misses go from the cache to the budget through the same listener, on loopback where it is one.
case $listen_host in
    '*' | 0.0.0.0 | localhost) self_host=127.0.0.1 ;;
    '[::]') self_host='[::1]' ;;
    *) self_host=$listen_host ;;
esac
[[ $listen_host == localhost ]] && listen=127.0.0.1:$listen_port

[[ $cache_ttl =~ ^[0-9]+(ms|s|m|h|d)$ ]] || die "--cache-ttl $cache_ttl: expected a duration like 30s, 10m, 1h"

positive() { [[ $2 =~ ^[1-9][0-9]{0,8}$ ]] || die "$1 $2: expected a whole number from 1"; }

# URL → scheme, host[:port] and path (without a trailing slash), in url_scheme, url_host, url_path.
split_url() {
    local option=$1 url=$2
    if [[ $url =~ ^(https?)://([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]+)?(/[A-Za-z0-9._~/-]*)?$ ]]; then
        url_scheme=${BASH_REMATCH[1]}
        url_host=${BASH_REMATCH[2]}${BASH_REMATCH[3]}
        url_name=${BASH_REMATCH[2]}
        url_path=${BASH_REMATCH[4]%/}
        if [[ -z ${BASH_REMATCH[3]} ]]; then
            [[ $url_scheme == https ]] && url_server=$url_host:443 || url_server=$url_host:80
        else
            url_server=$url_host
        fi
    else
        die "$option $url: expected http(s)://HOST[:PORT][/PATH]"
    fi
}

if [[ -n $owm_url ]]; then
    [[ -n $owm_rpm ]] || die "--openweathermap needs --requests-per-minute N (the fleet's budget)"
    [[ -n $site || -n $key_file ]] || die "--openweathermap needs --key-file FILE (the account's key)"
else
    [[ -z $key_file && -z $owm_rpm && -z $owm_burst ]] || die "--key-file, --requests-per-minute and --burst go with --openweathermap"
fi
[[ -z $owm_rpm ]] || positive --requests-per-minute "$owm_rpm"
[[ -z $owm_burst ]] || positive --burst "$owm_burst"
if [[ -n $om_url || -n $om_geocoding_url || -n $air_quality_url ]]; then
    [[ -n $om_rpm ]] || die "--open-meteo, --open-meteo-geocoding and --air-quality need --open-meteo-requests-per-minute N"
else
    [[ -z $om_rpm && -z $om_rpd ]] || die "--open-meteo-requests-per-minute and -per-day go with --open-meteo"
fi
[[ -z $om_rpm ]] || positive --open-meteo-requests-per-minute "$om_rpm"
[[ -z $om_rpd ]] || positive --open-meteo-requests-per-day "$om_rpd"
[[ -n $owm_url || -n $om_url || -n $om_geocoding_url || -n $air_quality_url || -n $nws_url ]] ||
    die "no upstream: give --openweathermap, --open-meteo, --open-meteo-geocoding, --air-quality or --nws"

# The budgets: a leaky bucket of N a minute that lets B through at once (nginx's burst is what it
# lets through beyond the first: B - 1), answering 429 with Retry-After ⌈60/N⌉.
owm_burst=${owm_burst:-$(((${owm_rpm:-6} + 5) / 6))}
om_burst=$(((${om_rpm:-6} + 5) / 6))
retry_after() { echo $(((60 + $1 - 1) / $1)); }
# A day's budget D is a second bucket: ⌊D/2880⌋ a minute (at least 1) that lets the rest of D through
# at once, so that no 24 hours see more than D (for D ≥ 2880; below, 1 a minute is already 1440 a day).
if [[ -n $om_rpd ]]; then
    om_day_rate=$((om_rpd / 2880))
    ((om_day_rate >= 1)) || om_day_rate=1
    om_day_burst=$((om_rpd - om_day_rate * 1440))
    ((om_day_burst >= 1)) || om_day_burst=1
fi

if [[ -n $site ]]; then
    cache_dir=/var/cache/nginx/weatherd-fleet
    access_log=/var/log/nginx/weatherd-fleet-access.log
    upstream_log=/var/log/nginx/weatherd-fleet-upstream.log
    error_log=/var/log/nginx/error.log
    key_conf=/etc/nginx/weatherd-fleet-key.conf
else
    [[ -n $dir ]] || die "--dir DIR is required (the configuration, logs and cache go there)"
    [[ $dir != *[[:space:]\"\'\;\{\}\$\\]* ]] || die "--dir $dir: no white space, quotes, ; { } \$ or \\ please (it goes into nginx's configuration)"
    mkdir -p "$dir"
    dir=$(realpath "$dir")
    cache_dir=$dir/cache
    access_log=$dir/access.log
    upstream_log=$dir/upstream.log
    error_log=$dir/error.log
    key_conf=$dir/keys/openweathermap.conf
    nginx=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
    [[ -x $nginx ]] || die "nginx is not installed (apt-get install nginx; or set NGINX)"
    if [[ -n $key_file ]]; then
        [[ -r $key_file ]] || die "--key-file $key_file: cannot read it"
        key=$(tr -d '[:space:]' <"$key_file")
        [[ -n $key ]] || die "--key-file $key_file is empty"
        [[ $key =~ ^[A-Za-z0-9._~-]+$ ]] || die "--key-file $key_file: a key is letters, digits and . _ ~ - only"
    fi
fi

# --- The configuration ----------------------------------------------------------------------------

# The shared part: nginx's http context. A system nginx includes it from /etc/nginx/conf.d/.
site_config() {
    cat <<EOF
# weatherd fleet proxy: one cache and one request budget per weather provider for every weatherd of a
# fleet. Written by scripts/fleet-proxy.sh (docs/fleet.md); options:
#   --listen $listen --cache-ttl $cache_ttl${owm_url:+ --openweathermap $owm_url --requests-per-minute $owm_rpm --burst $owm_burst}${om_rpm:+ --open-meteo-requests-per-minute $om_rpm}${om_rpd:+ --open-meteo-requests-per-day $om_rpd}${om_url:+ --open-meteo $om_url}${om_geocoding_url:+ --open-meteo-geocoding $om_geocoding_url}${air_quality_url:+ --air-quality $air_quality_url}${nws_url:+ --nws $nws_url}
#
# A device asks http://PROXY:$listen_port/PROVIDER/... (its base_url is http://PROXY:$listen_port/openweathermap,
# .../open-meteo, ...). The front server below answers from the cache; a miss goes, through this same
# listener, to the budget server, which spends the provider's budget, puts the account's key in and asks
# the provider. So the budget counts cache misses only, and a spent budget (429) is never cached.

# The cache: keys in 10 MB of shared memory (about 80,000 answers), answers on disk. An answer not asked
# for 6 hours goes; until then it is served stale while its provider fails.
proxy_cache_path $cache_dir levels=1:2 keys_zone=weatherd_fleet:10m max_size=1g inactive=6h use_temp_path=off;

# The query without the device's key (OpenWeatherMap's appid, Open-Meteo's apikey): the cache key, the
# logs and, for OpenWeatherMap, the query sent on with the account's key. weatherd puts appid last.
map \$args \$weatherd_fleet_args {
    "~^(?<weatherd_fleet_before>.*)&(?:appid|apikey)=[^&]*(?<weatherd_fleet_after>&.*)?\$" "\$weatherd_fleet_before\$weatherd_fleet_after";
    "~^(?:appid|apikey)=[^&]*(?:&(?<weatherd_fleet_rest>.*))?\$" "\$weatherd_fleet_rest";
    default \$args;
}

# Every device request: its path and query without the key, the status, and how the cache answered
# (HIT, MISS, STALE, UPDATING, EXPIRED).
log_format weatherd_fleet '\$time_iso8601 \$remote_addr "\$request_method \$uri?\$weatherd_fleet_args" \$status \$body_bytes_sent '
                          '\$request_time cache=\$upstream_cache_status';
# Every cache miss: what the budget said (PASSED or REJECTED), the provider's status and address.
log_format weatherd_fleet_upstream '\$time_iso8601 "\$uri?\$weatherd_fleet_args" \$status budget=\$limit_req_status '
                                   'upstream=\$upstream_status \$upstream_addr \$upstream_response_time';
EOF
    if [[ -n $owm_url ]]; then
        cat <<EOF

# OpenWeatherMap's budget: $owm_rpm requests a minute for the whole fleet, $owm_burst at once.
limit_req_zone \$server_name zone=weatherd_fleet_openweathermap:1m rate=${owm_rpm}r/m;
EOF
    fi
    if [[ -n $om_rpm ]]; then
        cat <<EOF

# Open-Meteo's budget (forecasts, geocoding and air quality alike): $om_rpm requests a minute, $om_burst at once.
limit_req_zone \$server_name zone=weatherd_fleet_open_meteo:1m rate=${om_rpm}r/m;
EOF
        if [[ -n $om_rpd ]]; then
            cat <<EOF
# and $om_rpd a day: a bucket of ${om_day_rate} a minute that lets $om_day_burst through at once (no 24 hours see more than $om_rpd).
limit_req_zone \$server_name zone=weatherd_fleet_open_meteo_day:1m rate=${om_day_rate}r/m;
EOF
        fi
    fi
    cat <<EOF

# The budget server below, through this same listener; and the providers (their names are resolved when
# nginx starts). Connections are kept open.
upstream weatherd_fleet_budget {
    server $self_host:$listen_port;
    keepalive 16;
}
EOF
    for_each_upstream upstream_block

    cat <<EOF

# The front: what devices ask. Answers come from the cache when it has them; one request per cache key
# goes on at a time (the others wait for it, up to 15 s); while a provider fails (an error, a timeout, a
# 5xx, or its budget spent) the last answer is served, marked STALE.
server {
    listen $listen default_server;
    server_name weatherd-fleet;
    server_tokens off;
    access_log $access_log weatherd_fleet;

    proxy_cache weatherd_fleet;
    proxy_cache_key "\$uri?\$weatherd_fleet_args";
    proxy_cache_valid 200 $cache_ttl;
    proxy_cache_lock on;
    proxy_cache_lock_timeout 15s;
    proxy_cache_lock_age 15s;
    proxy_cache_use_stale error timeout updating http_500 http_502 http_503 http_504 http_429;
    # The cache time is --cache-ttl whatever the provider says; nothing of the provider's directs nginx.
    proxy_ignore_headers Cache-Control Expires Set-Cookie Vary X-Accel-Expires X-Accel-Redirect X-Accel-Limit-Rate X-Accel-Buffering X-Accel-Charset;
    proxy_hide_header Set-Cookie;
    add_header X-Cache-Status \$upstream_cache_status always;

    proxy_http_version 1.1;
    proxy_set_header Connection "";
    proxy_set_header Host weatherd-fleet-budget;
    proxy_read_timeout 20s;
EOF
    for_each_upstream front_location
    cat <<EOF

    location / {
        default_type application/json;
        return 404 '{"error":"not a path of this proxy: its providers are under$(for_each_upstream prefix_list)"}\n';
    }
}

# The budget: cache misses only, from the front above (through this listener). It spends the provider's
# budget, answers 429 in the provider's shape when it is spent, and asks the provider.
server {
    listen $listen;
    server_name weatherd-fleet-budget;
    server_tokens off;
    access_log $upstream_log weatherd_fleet_upstream;
    allow 127.0.0.0/8;
    allow ::1;
EOF
    case $self_host in 127.* | '[::1]') ;; *) echo "    allow ${self_host//[\[\]]/};" ;; esac
    cat <<EOF
    deny all;

    limit_req_status 429;
    limit_req_log_level notice;
    proxy_http_version 1.1;
    proxy_set_header Connection "";
    proxy_connect_timeout 5s;
    proxy_read_timeout 15s;
EOF
    for_each_upstream budget_location
    echo "}"
}

# Calls "$1 PREFIX URL BUDGET" for each upstream given (BUDGET: the zone's provider, or none).
for_each_upstream() {
    [[ -z $owm_url ]] || "$1" openweathermap "$owm_url" openweathermap
    [[ -z $om_url ]] || "$1" open-meteo "$om_url" open_meteo
    [[ -z $om_geocoding_url ]] || "$1" open-meteo-geocoding "$om_geocoding_url" open_meteo
    [[ -z $air_quality_url ]] || "$1" air-quality "$air_quality_url" open_meteo
    [[ -z $nws_url ]] || "$1" nws "$nws_url" none
}

prefix_list() { printf ' /%s/' "$1"; }

upstream_block() {
    split_url "--$1" "$2"
    echo "upstream weatherd_fleet_${1//-/_} {"
    echo "    server $url_server;"
    echo "    keepalive 8;"
    echo "}"
}

front_location() {
    echo
    echo "    location /$1/ {"
    echo "        proxy_pass http://weatherd_fleet_budget/_budget/$1/;"
    echo "    }"
}

# limit_req of ZONE letting B through at once: nginx's burst is what it lets through beyond the first.
limit_req() {
    if (($2 > 1)); then
        echo "        limit_req zone=$1 burst=$(($2 - 1)) nodelay;"
    else
        echo "        limit_req zone=$1;"
    fi
}

budget_location() {
    local prefix=$1 zone=$3 retry rpm
    split_url "--$prefix" "$2"
    echo
    echo "    location /_budget/$prefix/ {"
    case $zone in
        openweathermap)
            rpm=$owm_rpm
            limit_req weatherd_fleet_openweathermap "$owm_burst"
            ;;
        open_meteo)
            rpm=$om_rpm
            limit_req weatherd_fleet_open_meteo "$om_burst"
            [[ -z $om_rpd ]] || limit_req weatherd_fleet_open_meteo_day "$om_day_burst"
            ;;
    esac
    [[ $zone == none ]] || echo "        error_page 429 = @weatherd_fleet_${prefix//-/_}_spent;"
    if [[ $zone == openweathermap ]]; then
        echo "        # The account's key, instead of the device's placeholder: set \$weatherd_fleet_appid \"KEY\";"
        echo "        include $key_conf;"
        echo "        # nginx's error lines name the URL asked, which carries the key: none is written for this"
        echo "        # location (its failures are in the upstream log: the status, the provider's, its address)."
        echo "        error_log $error_log emerg;"
        echo "        set \$args \"\${weatherd_fleet_args}&appid=\${weatherd_fleet_appid}\";"
    fi
    echo "        proxy_set_header Host $url_host;"
    if [[ $url_scheme == https ]]; then
        echo "        proxy_ssl_server_name on;"
        echo "        proxy_ssl_name $url_name;"
        echo "        proxy_ssl_verify on;"
        echo "        proxy_ssl_trusted_certificate /etc/ssl/certs/ca-certificates.crt;"
    fi
    echo "        proxy_pass $url_scheme://weatherd_fleet_${prefix//-/_}$url_path/;"
    echo "    }"
    [[ $zone != none ]] || return 0
    retry=$(retry_after "$rpm")
    echo
    echo "    location @weatherd_fleet_${prefix//-/_}_spent {"
    echo "        default_type application/json;"
    echo "        add_header Retry-After $retry always;"
    if [[ $zone == openweathermap ]]; then
        # OpenWeatherMap's own 429: {"cod":429,"message":"Your account is temporary blocked ..."}.
        echo "        return 429 '{\"cod\":429,\"message\":\"The fleet request budget of $rpm a minute is spent; retry in $retry s\"}\n';"
    else
        # Open-Meteo's (forecast, geocoding and air quality alike): {"error":true,"reason":"..."}.
        echo "        return 429 '{\"error\":true,\"reason\":\"The fleet Open-Meteo request budget is spent; retry in $retry s\"}\n';"
    fi
    echo "    }"
}

if [[ -n $site ]]; then
    site_config
    exit 0
fi

# The whole configuration for this nginx: everything inside DIR.
mkdir -p "$dir/tmp" "$dir/keys" "$cache_dir"
chmod 0700 "$dir/keys"
user_line=
if [[ $(id -u) -eq 0 ]]; then
    user_line="user $(stat -c %U "$dir") $(stat -c %G "$dir");"
fi
site_config >"$dir/fleet.conf"
cat >"$dir/nginx.conf" <<EOF
# Written by scripts/fleet-proxy.sh: nginx run in the foreground with everything in $dir.
$user_line
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
error_log stderr warn;

events {
    worker_connections 2048;
}

http {
    client_body_temp_path $dir/tmp/client_body;
    proxy_temp_path $dir/tmp/proxy;
    fastcgi_temp_path $dir/tmp/fastcgi;
    uwsgi_temp_path $dir/tmp/uwsgi;
    scgi_temp_path $dir/tmp/scgi;
    default_type application/octet-stream;

    include $dir/fleet.conf;
}
EOF
touch "$dir/access.log" "$dir/upstream.log" "$dir/error.log"

nginx_pid=
stop() {
    trap '' TERM INT HUP
    if [[ -n $nginx_pid ]]; then
        kill -TERM "$nginx_pid" 2>/dev/null || true
        wait "$nginx_pid" 2>/dev/null || true
    fi
    rm -f "$key_conf"
}
trap 'stop; exit 0' TERM INT HUP
trap stop EXIT

if [[ -n $owm_url ]]; then
    (umask 077 && printf 'set $weatherd_fleet_appid "%s";\n' "$key" >"$key_conf")
fi
"$nginx" -t -q -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" || die "nginx refused the configuration in $dir/nginx.conf"

"$nginx" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" -g 'daemon off;' &
nginx_pid=$!

# Ready once the listener answers (nginx prints nothing when it starts): at most 30 s.
ready=
for _ in $(seq 600); do
    kill -0 "$nginx_pid" 2>/dev/null || { wait "$nginx_pid" || true; nginx_pid=; die "nginx did not start (see $dir/error.log)"; }
    if (exec 3<>"/dev/tcp/${self_host//[\[\]]/}/$listen_port") 2>/dev/null; then
        ready=1
        break
    fi
    sleep 0.05
done
[[ -n $ready ]] || die "nginx does not answer on $listen after 30 s (see $dir/error.log)"
echo "fleet-proxy listening on http://$listen (nginx $nginx_pid; configuration and logs in $dir)"
wait "$nginx_pid"
