//! CustomResourceDefinitions through kubectl: a cluster-scoped kind named every way
//! discovery allows, the default NAME/AGE table and printer columns (a `date`
//! column as an age, a missing value as `<none>`), `explain` of nested fields, a
//! refused definition, a name another definition holds, and `create`/`delete`.

use warehouse_kubectl::{CommandOutput, NoFiles, Session};
use warehouse_sim::{Cluster, Topology};

const WIDGETS: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.toys.example.org
spec:
  group: toys.example.org
  scope: Cluster
  names:
    plural: widgets
    singular: widget
    kind: Widget
    shortNames: [wd]
  versions:
  - name: v1alpha1
    served: true
    storage: false
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            description: The widget's parts.
            properties:
              colour: {type: string, description: The paint.}
              parts:
                type: array
                description: What it is made of.
                items:
                  type: object
                  properties:
                    name: {type: string, description: A part's name.}
                    count: {type: integer}
              labels:
                type: object
                additionalProperties: {type: string}
";

fn run(s: &mut Session, line: &str) -> CommandOutput {
    s.run(line, None, &NoFiles)
}

fn apply(s: &mut Session, yaml: &str) -> CommandOutput {
    s.run("apply -f -", Some(yaml), &NoFiles)
}

fn session() -> Session {
    let mut s = Session::new(Cluster::new(3, Topology::default()));
    assert_eq!(
        apply(&mut s, WIDGETS).stdout,
        "customresourcedefinition.apiextensions.k8s.io/widgets.toys.example.org created\n"
    );
    let out = run(
        &mut s,
        "wait --for condition=established crd/widgets.toys.example.org",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    s
}

const GEAR: &str = "apiVersion: toys.example.org/v1
kind: Widget
metadata:
  name: gear
spec:
  colour: red
  parts: [{name: tooth, count: 12}]
  labels: {size: big}
";

#[test]
fn a_cluster_scoped_kind_answers_to_every_name_discovery_knows() {
    let mut s = session();
    assert_eq!(
        s.run("create -f -", Some(GEAR), &NoFiles).stdout,
        "widget.toys.example.org/gear created\n"
    );
    for name in [
        "widgets",
        "widget",
        "wd",
        "Widget",
        "widgets.toys.example.org",
        "widgets.v1.toys.example.org",
    ] {
        let out = run(&mut s, &format!("get {name} gear -o name"));
        assert_eq!(out.stdout, "widget.toys.example.org/gear\n", "{name}");
    }
    // The preferred version is v1 (GA before alpha), and the kind is cluster-scoped.
    let out = run(&mut s, "api-resources --api-group=toys.example.org");
    assert_eq!(
        out.stdout,
        "NAME      SHORTNAMES   APIVERSION            NAMESPACED   KIND\nwidgets   wd           toys.example.org/v1   false        Widget\n"
    );
    let out = run(&mut s, "get widgets");
    assert_eq!(out.stdout, "NAME   AGE\ngear   0s\n");
    let out = run(&mut s, "get wd gear -o jsonpath={.spec.parts[0].count}");
    assert_eq!(out.stdout, "12");
    let out = run(&mut s, "label wd gear shiny=yes");
    assert_eq!(out.stdout, "widget.toys.example.org/gear labeled\n");
    let out = run(&mut s, "delete widget gear");
    assert_eq!(out.stdout, "widget.toys.example.org \"gear\" deleted\n");
    let out = run(&mut s, "get widgets");
    assert_eq!(out.stderr, "No resources found\n");
}

#[test]
fn printer_columns_read_json_paths_and_show_dates_as_ages() {
    let mut s = session();
    let with_columns = WIDGETS.replace(
        "    schema:\n      openAPIV3Schema:\n        type: object\n        properties:",
        "    additionalPrinterColumns:\n    - {name: Colour, type: string, jsonPath: .spec.colour}\n    - {name: Parts, type: integer, jsonPath: '.spec.parts[0].count'}\n    - {name: Shape, type: string, jsonPath: .spec.shape, priority: 1}\n    - {name: Made, type: date, jsonPath: .metadata.creationTimestamp}\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:",
    );
    assert_eq!(
        apply(&mut s, &with_columns).stdout,
        "customresourcedefinition.apiextensions.k8s.io/widgets.toys.example.org configured\n"
    );
    apply(&mut s, GEAR);
    apply(
        &mut s,
        &GEAR.replace("gear", "plain").replace("  colour: red\n", ""),
    );
    let out = s.run_shell("sim advance 90s", None, &NoFiles);
    assert_eq!(out.code, 0);
    let out = run(&mut s, "get widgets");
    assert_eq!(
        out.stdout,
        "NAME    COLOUR   PARTS   MADE\ngear    red      12      90s\nplain   <none>   12      90s\n"
    );
    let out = run(&mut s, "get widgets -o wide");
    assert_eq!(
        out.stdout,
        "NAME    COLOUR   PARTS   SHAPE    MADE\ngear    red      12      <none>   90s\nplain   <none>   12      <none>   90s\n"
    );
}

#[test]
fn explain_reads_the_schema_of_the_preferred_version() {
    let mut s = session();
    let out = run(&mut s, "explain widgets.spec.parts");
    assert_eq!(
        out.stdout,
        "GROUP:      toys.example.org\nKIND:       Widget\nVERSION:    v1\n\nFIELD: parts <[]Object>\n\n\nDESCRIPTION:\n    What it is made of.\n    \nFIELDS:\n  count\t<integer>\n    <no description>\n\n  name\t<string>\n    A part's name.\n\n\n"
    );
    let out = run(&mut s, "explain wd.spec.labels");
    assert!(
        out.stdout.contains("FIELD: labels <map[string]string>"),
        "{}",
        out.stdout
    );
    let out = run(&mut s, "explain widgets.spec.size");
    assert_eq!(out.stderr, "error: field \"size\" does not exist\n");
}

#[test]
fn a_bad_definition_and_a_taken_name_are_refused() {
    let mut s = session();
    let out = apply(
        &mut s,
        &WIDGETS
            .replace("group: toys.example.org", "group: toys")
            .replace("name: widgets.toys.example.org", "name: widgets.toys"),
    );
    assert_eq!(
        out.stderr,
        "The CustomResourceDefinition \"widgets.toys\" is invalid: spec.group: Invalid value: \"toys\": should be a domain with at least one dot\n"
    );
    // Another definition of the group asking for the short name `wd`.
    let gadgets = WIDGETS
        .replace("widgets", "gadgets")
        .replace("widget", "gadget")
        .replace("Widget", "Gadget");
    apply(&mut s, &gadgets);
    let out = s.run_shell("sim advance 1s", None, &NoFiles);
    assert_eq!(out.code, 0);
    let out = run(
        &mut s,
        "get crd gadgets.toys.example.org -o jsonpath={.status.conditions[*].reason}",
    );
    assert_eq!(out.stdout, "ShortNamesConflict NotAccepted");
    let out = run(&mut s, "get gadgets");
    assert_eq!(
        out.stderr,
        "error: the server doesn't have a resource type \"gadgets\"\n"
    );
}

#[test]
fn the_scale_subresource_lets_kubectl_scale_a_custom_object() {
    let mut s = session();
    let out = run(&mut s, "scale wd gear --replicas=2");
    assert_eq!(
        out.stderr,
        "error: the server could not find the requested resource\n"
    );
    let scalable = WIDGETS.replace(
        "    storage: true\n",
        "    storage: true\n    subresources:\n      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}\n",
    ).replace(
        "              colour: {type: string, description: The paint.}\n",
        "              colour: {type: string, description: The paint.}\n              replicas: {type: integer}\n",
    );
    apply(&mut s, &scalable);
    apply(&mut s, GEAR);
    let out = run(&mut s, "scale wd gear --replicas=3");
    assert_eq!(out.stdout, "widget.toys.example.org/gear scaled\n");
    let out = run(
        &mut s,
        "get wd gear -o jsonpath={.spec.replicas}/{.metadata.generation}",
    );
    assert_eq!(out.stdout, "3/2");
    let out = run(&mut s, "scale wd gear --replicas=1 --current-replicas=2");
    assert_eq!(out.stderr, "error: Expected replicas to be 2, was 3\n");
}

#[test]
fn edit_writes_a_custom_object_through_its_schema() {
    let mut s = session();
    apply(&mut s, GEAR);
    let edited = GEAR.replace("colour: red", "colour: blue");
    let out = s.run("edit widget gear", Some(&edited), &NoFiles);
    assert_eq!(out.stdout, "widget.toys.example.org/gear edited\n");
    let out = run(&mut s, "get wd gear -o jsonpath={.spec.colour}");
    assert_eq!(out.stdout, "blue");
    let out = s.run(
        "edit widget gear",
        Some(&GEAR.replace("colour: red", "colour: 5")),
        &NoFiles,
    );
    assert!(
        out.stderr.starts_with("The Widget \"gear\" is invalid: spec.colour: Invalid value: \"integer\": spec.colour in body must be of type string: \"integer\"\n"),
        "{}",
        out.stderr
    );
}
