#!/usr/bin/env bash
# Makes web/countries.geojson, the offline world basemap of the map page, from Natural Earth's
# 1:110m countries (public domain, https://www.naturalearthdata.com/about/terms-of-use/).
#
# The shapefile is the copy shipped inside the geopandas 0.14.4 wheel on the Python package index
# (geopandas/datasets/naturalearth_lowres/); the wheel is checked against its SHA-256 so the result
# is the same on every machine. Needs python3 with pip and ogr2ogr (Debian gdal-bin, installed
# here when missing and run as root).
# Usage: scripts/make-basemap.sh [OUTPUT]   (default web/countries.geojson)
set -euo pipefail

cd "$(dirname "$0")/.."
output=${1:-web/countries.geojson}
wheel=geopandas-0.14.4-py3-none-any.whl
wheel_sha256=3bb6473cb59d51e1a7fe2dbc24a1a063fb0ebdeddf3ce08ddbf8c7ddc99689aa

if ! command -v ogr2ogr >/dev/null; then
    if [[ $(id -u) -ne 0 ]]; then
        echo "error: ogr2ogr not found; install it as root: apt-get install gdal-bin" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends gdal-bin >/dev/null
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$work" geopandas==0.14.4
echo "$wheel_sha256  $work/$wheel" | sha256sum --check --quiet
python3 -m zipfile -e "$work/$wheel" "$work/wheel"
shapefile="$work/wheel/geopandas/datasets/naturalearth_lowres/naturalearth_lowres.shp"

rm -f "$output"
ogr2ogr -f GeoJSON -lco RFC7946=YES -lco COORDINATE_PRECISION=3 \
    -select name,iso_a3 -nln countries "$output" "$shapefile"
echo "wrote $output ($(stat -c %s "$output") bytes, $(grep -c '"type": "Feature"' "$output") countries)" >&2
