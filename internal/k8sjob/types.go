package k8sjob

// The manifest's own types: the fields of the Kubernetes API's batch/v1 Job
// and v1 ConfigMap that the manifest sets, no others, with the API's JSON
// names and omissions (k8s.io/api v0.37), so that they marshal as the API's
// types do. e2e/k8sjob_test.go decodes every manifest strictly into the
// API's types and compares the bytes with what they marshal to.

// TypeMeta is an object's apiVersion and kind.
type TypeMeta struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
}

// ObjectMeta is the part of an object's metadata the manifest sets.
type ObjectMeta struct {
	Name        string            `json:"name,omitempty"`
	Namespace   string            `json:"namespace,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// Job is a batch/v1 Job.
type Job struct {
	TypeMeta
	ObjectMeta `json:"metadata"`
	Spec       JobSpec `json:"spec"`
	// Status is always empty ({} in the manifest, as the API writes it).
	Status struct{} `json:"status"`
}

// IndexedCompletion is the completion mode of an Indexed Job.
const IndexedCompletion = "Indexed"

// JobSpec is the part of a Job's spec the manifest sets.
type JobSpec struct {
	Parallelism    *int32          `json:"parallelism,omitempty"`
	Completions    *int32          `json:"completions,omitempty"`
	BackoffLimit   *int32          `json:"backoffLimit,omitempty"`
	Template       PodTemplateSpec `json:"template"`
	CompletionMode *string         `json:"completionMode,omitempty"`
}

// PodTemplateSpec is a Job's pod template.
type PodTemplateSpec struct {
	ObjectMeta `json:"metadata"`
	Spec       PodSpec `json:"spec"`
}

// PodSpec is the part of a pod's spec the manifest sets.
type PodSpec struct {
	Volumes                      []Volume            `json:"volumes,omitempty"`
	Containers                   []ContainerSpec     `json:"containers"`
	RestartPolicy                string              `json:"restartPolicy,omitempty"`
	AutomountServiceAccountToken *bool               `json:"automountServiceAccountToken,omitempty"`
	SecurityContext              *PodSecurityContext `json:"securityContext,omitempty"`
}

// Volume is a pod's volume: here always a ConfigMap's.
type Volume struct {
	Name      string                 `json:"name"`
	ConfigMap *ConfigMapVolumeSource `json:"configMap,omitempty"`
}

// ConfigMapVolumeSource projects a ConfigMap's keys (Items, or every key
// at its own name when nil) into a volume.
type ConfigMapVolumeSource struct {
	Name  string      `json:"name"`
	Items []KeyToPath `json:"items,omitempty"`
}

// KeyToPath projects a ConfigMap's key at a path in the volume.
type KeyToPath struct {
	Key  string `json:"key"`
	Path string `json:"path"`
}

// ContainerSpec is the part of a container the manifest sets.
type ContainerSpec struct {
	Name            string               `json:"name"`
	Image           string               `json:"image,omitempty"`
	Command         []string             `json:"command,omitempty"`
	Args            []string             `json:"args,omitempty"`
	Env             []EnvVar             `json:"env,omitempty"`
	Resources       ResourceRequirements `json:"resources,omitempty"`
	VolumeMounts    []VolumeMount        `json:"volumeMounts,omitempty"`
	SecurityContext *SecurityContext     `json:"securityContext,omitempty"`
}

// EnvVar is a container's environment variable, from a pod's field or a
// Secret's key (never a literal value: the manifest holds none).
type EnvVar struct {
	Name      string        `json:"name"`
	Value     string        `json:"value,omitempty"`
	ValueFrom *EnvVarSource `json:"valueFrom,omitempty"`
}

// EnvVarSource is where an environment variable's value comes from.
type EnvVarSource struct {
	FieldRef     *ObjectFieldSelector `json:"fieldRef,omitempty"`
	SecretKeyRef *SecretKeySelector   `json:"secretKeyRef,omitempty"`
}

// ObjectFieldSelector names a field of the pod.
type ObjectFieldSelector struct {
	FieldPath string `json:"fieldPath"`
}

// SecretKeySelector names a Secret's key.
type SecretKeySelector struct {
	Name string `json:"name"`
	Key  string `json:"key"`
}

// Resource names of ResourceList.
const (
	ResourceCPU    = "cpu"
	ResourceMemory = "memory"
)

// ResourceList is resources by name (ResourceCPU, ResourceMemory).
type ResourceList map[string]Quantity

// ResourceRequirements are a container's requests and limits.
type ResourceRequirements struct {
	Limits   ResourceList `json:"limits,omitempty"`
	Requests ResourceList `json:"requests,omitempty"`
}

// VolumeMount mounts a volume in a container.
type VolumeMount struct {
	Name      string `json:"name"`
	ReadOnly  bool   `json:"readOnly,omitempty"`
	MountPath string `json:"mountPath"`
}

// SecurityContext is the part of a container's security context the
// manifest sets.
type SecurityContext struct {
	Capabilities             *Capabilities `json:"capabilities,omitempty"`
	AllowPrivilegeEscalation *bool         `json:"allowPrivilegeEscalation,omitempty"`
}

// Capabilities are the Linux capabilities dropped.
type Capabilities struct {
	Drop []string `json:"drop,omitempty"`
}

// PodSecurityContext is the part of a pod's security context the manifest
// sets.
type PodSecurityContext struct {
	RunAsNonRoot   *bool           `json:"runAsNonRoot,omitempty"`
	SeccompProfile *SeccompProfile `json:"seccompProfile,omitempty"`
}

// SeccompProfile is a pod's seccomp profile ("RuntimeDefault").
type SeccompProfile struct {
	Type string `json:"type"`
}

// ConfigMap is a v1 ConfigMap.
type ConfigMap struct {
	TypeMeta
	ObjectMeta `json:"metadata"`
	Data       map[string]string `json:"data,omitempty"`
}
