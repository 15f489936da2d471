#!/usr/bin/env python3
"""Derive tests/k8s/schema.json from the upstream Kubernetes definitions (run by hand).

Not run at build or test time: the tests read the schema.json this writes. Inputs (see
tests/k8s/README.md for where each comes from):

  SWAGGER  Kubernetes release-1.36 OpenAPI v2 (api/openapi-spec/swagger.json of
           kubernetes/kubernetes), as kubernetes-client/python v36.0.3 ships it in
           kubernetes/swagger.json.unprocessed
  LWS_CRD  kubernetes-sigs/lws v0.10.0 config/crd/bases/leaderworkerset.x-k8s.io_leaderworkersets.yaml

  python3 tests/k8s/derive_schema.py SWAGGER LWS_CRD > tests/k8s/schema.json

For every definition gpuplan's manifests use, the schema lists every property the upstream
definition has (so a field upstream does not have is refused: a misspelt key fails the test),
each property's type, and the definition's required fields. A property whose type is a
definition outside that set is checked as an object only ("unexpanded").
"""
import json
import sys

import yaml

CORE = "io.k8s.api.core.v1."
APPS = "io.k8s.api.apps.v1."
META = "io.k8s.apimachinery.pkg.apis.meta.v1."
LWS = "x-k8s.io.leaderworkerset.v1."

# The definitions gpuplan writes into deploy.json, expanded in full.
EXPANDED = [
    APPS + "Deployment", APPS + "DeploymentSpec",
    CORE + "Service", CORE + "ServiceSpec", CORE + "ServicePort",
    CORE + "PodTemplateSpec", CORE + "PodSpec", CORE + "Container", CORE + "ContainerPort",
    CORE + "EnvVar", CORE + "EnvVarSource", CORE + "SecretKeySelector",
    CORE + "ResourceRequirements", CORE + "Probe", CORE + "HTTPGetAction",
    CORE + "Volume", CORE + "VolumeMount", CORE + "EmptyDirVolumeSource", CORE + "SecretVolumeSource",
    META + "ObjectMeta", META + "LabelSelector",
]

# Definitions that are a scalar in JSON.
SCALAR_FORMATS = {"int-or-string": "int-or-string"}
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"


def ref_name(ref):
    return ref.rsplit("/", 1)[-1]


def scalar(swagger, name):
    """The JSON type of a scalar definition (Quantity, IntOrString, Time), else None."""
    if name == QUANTITY:
        return "quantity"
    d = swagger["definitions"].get(name, {})
    if d.get("type") in ("string", "integer", "number", "boolean") and "properties" not in d:
        return SCALAR_FORMATS.get(d.get("format"), d["type"])
    return None


def prop_of(swagger, p):
    """One property, in the checker's form."""
    if "$ref" in p:
        name = ref_name(p["$ref"])
        s = scalar(swagger, name)
        if s:
            return {"type": s}
        if name in EXPANDED:
            return {"$ref": name}
        return {"type": "object", "unexpanded": name}
    if "allOf" in p and len(p["allOf"]) == 1:
        return prop_of(swagger, p["allOf"][0])
    t = p.get("type", "object")
    out = {"type": t}
    if t == "string" and p.get("format") == "int-or-string":
        out["type"] = "int-or-string"
    if t == "array":
        it = prop_of(swagger, p.get("items", {}))
        out["items"] = it.get("$ref") or it["type"]
        if "unexpanded" in it:
            out["unexpanded"] = it["unexpanded"]
    if t == "object" and "additionalProperties" in p:
        v = prop_of(swagger, p["additionalProperties"])
        out["values"] = v.get("$ref") or v["type"]
    return out


def definition(swagger, name):
    d = swagger["definitions"][name]
    return {
        "required": d.get("required", []),
        "properties": {k: prop_of(swagger, p) for k, p in sorted(d.get("properties", {}).items())},
    }


def crd_props(swagger, props, override):
    out = {}
    for k, p in sorted(props.items()):
        out[k] = override[k] if k in override else prop_of(swagger, p)
    return out


def lws_definitions(swagger, crd):
    v = crd["spec"]["versions"][0]
    root = v["schema"]["openAPIV3Schema"]
    spec = root["properties"]["spec"]
    lwt = spec["properties"]["leaderWorkerTemplate"]
    pod = {"$ref": CORE + "PodTemplateSpec"}
    # the CRD inlines PodTemplateSpec from k8s.io/api; check it has the same container fields
    inline = lwt["properties"]["workerTemplate"]["properties"]["spec"]["properties"]["containers"]["items"]
    upstream = set(swagger["definitions"][CORE + "Container"]["properties"])
    diff = set(inline["properties"]) ^ upstream
    if diff:
        sys.stderr.write("note: LWS CRD container fields differ from swagger: %s\n" % sorted(diff))
    return {
        LWS + "LeaderWorkerSet": {
            "required": root.get("required", []),
            "properties": crd_props(swagger, root["properties"],
                                    {"metadata": {"$ref": META + "ObjectMeta"},
                                     "spec": {"$ref": LWS + "LeaderWorkerSetSpec"}}),
        },
        LWS + "LeaderWorkerSetSpec": {
            "required": spec.get("required", []),
            "properties": crd_props(swagger, spec["properties"],
                                    {"leaderWorkerTemplate": {"$ref": LWS + "LeaderWorkerTemplate"}}),
        },
        LWS + "LeaderWorkerTemplate": {
            "required": lwt.get("required", []),
            "properties": crd_props(swagger, lwt["properties"], {"leaderTemplate": pod, "workerTemplate": pod}),
        },
    }, crd["spec"]["group"] + "/" + v["name"]


def main():
    swagger = json.load(open(sys.argv[1]))
    crd = yaml.safe_load(open(sys.argv[2]))
    defs = {name: definition(swagger, name) for name in EXPANDED}
    lws, lws_api = lws_definitions(swagger, crd)
    defs.update(lws)
    defs["List"] = {
        "required": ["apiVersion", "kind", "items"],
        "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"},
                       "items": {"type": "array", "items": "Object"}},
    }
    defs["Object"] = {"required": ["apiVersion", "kind"], "additionalProperties": True}
    schema = {
        "source": "Derived by tests/k8s/derive_schema.py (see tests/k8s/README.md): Kubernetes release-1.36 "
                  "OpenAPI v2 (kubernetes/kubernetes api/openapi-spec/swagger.json, as shipped in "
                  "kubernetes-client/python v36.0.3 kubernetes/swagger.json.unprocessed) and the LeaderWorkerSet "
                  "CRD (kubernetes-sigs/lws v0.10.0 config/crd/bases/leaderworkerset.x-k8s.io_leaderworkersets.yaml). "
                  "'List' and 'Object' are kubectl's client-side v1 List, not an OpenAPI definition.",
        "kinds": {
            "Deployment": {"apiVersion": "apps/v1", "definition": APPS + "Deployment"},
            "Service": {"apiVersion": "v1", "definition": CORE + "Service"},
            "LeaderWorkerSet": {"apiVersion": lws_api, "definition": LWS + "LeaderWorkerSet"},
        },
        "object": {
            "required": ["apiVersion", "kind", "metadata"],
            "metadata_required": ["name"],
            "why": "kubectl refuses an object without apiVersion or kind; the API server refuses one without "
                   "metadata.name or generateName (the OpenAPI definitions mark none of these required)",
        },
        "definitions": defs,
    }
    json.dump(schema, sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
