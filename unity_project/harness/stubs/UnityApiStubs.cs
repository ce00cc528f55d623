// Hand-written stand-ins for the Unity / NUnit API surface that Gcv.Runtime, Gcv.Editor and
// Gcv.Tests use, so that mcs can type-check that engine glue on a machine without Unity
// (tests/test_parity_csharp.py does). They are NOT Unity: they mirror the documented
// signatures as we read them and prove only that our code is consistent with that reading.
// Only Unity itself can prove the glue compiles against the real API. Never shipped:
// this folder is outside Assets/, so Unity does not import it.
using System;
using System.Collections;
namespace UnityEngine {
  public class Object { public static void DontDestroyOnLoad(Object o){} public static void Destroy(Object o){} public string name; }
  public class Component : Object {}
  public class Behaviour : Component {}
  public class MonoBehaviour : Behaviour { public Coroutine StartCoroutine(IEnumerator e){return null;} }
  public class Coroutine {}
  public class GameObject : Object { public GameObject(string n){} public T AddComponent<T>() where T : Component { return null; } }
  public enum RuntimeInitializeLoadType { AfterSceneLoad, BeforeSceneLoad }
  public class RuntimeInitializeOnLoadMethodAttribute : Attribute { public RuntimeInitializeOnLoadMethodAttribute(RuntimeInitializeLoadType t){} }
  public class TooltipAttribute : Attribute { public TooltipAttribute(string s){} }
  public enum LogType { Error, Assert, Warning, Log, Exception }
  public enum LogOption { None, NoStacktrace }
  public static class Debug { public static void Log(object o){} public static void LogError(object o){} public static void LogFormat(LogType t, LogOption o, Object c, string f, params object[] a){} }
  public static class Application { public static string unityVersion; public static string dataPath; public static bool isBatchMode; public static int targetFrameRate; public static void Quit(int c){} }
  public static class Time { public static int captureFramerate; }
  public static class Screen { public static int width, height; }
  public static class QualitySettings { public static int vSyncCount; }
  public static class SystemInfo { public static Rendering.GraphicsDeviceType graphicsDeviceType; public static string graphicsDeviceName; public static string processorType; }
  public struct Color { public Color(float r,float g,float b,float a){} }
  public struct Vector2 { public Vector2(float x,float y){} }
  public struct Vector3 { public Vector3(float x,float y,float z){} public static Vector3 zero; }
  public struct Quaternion { public static Quaternion identity; }
  public struct Matrix4x4 { public static Matrix4x4 identity; public static Matrix4x4 Ortho(float l,float r,float b,float t,float n,float f){return identity;} public static Matrix4x4 TRS(Vector3 p, Quaternion q, Vector3 s){return identity;} }
  public struct Rect { public Rect(float x,float y,float w,float h){} }
  public static class Mathf { public static float Max(float a,float b){return a;} public static float Min(float a,float b){return a;} }
  public class Texture : Object { public int width, height; }
  public enum RenderTextureFormat { ARGB32 }
  public enum TextureFormat { RGB24 }
  public class RenderTexture : Texture { public RenderTexture(int w,int h,int d,RenderTextureFormat f){} public bool Create(){return true;} public void Release(){} public static RenderTexture active; }
  public class Texture2D : Texture { public Texture2D(int w,int h,TextureFormat f,bool m){} public void ReadPixels(Rect r,int x,int y,bool m){} public void Apply(bool m){} }
  public static class ImageConversion { public static byte[] EncodeToPNG(this Texture2D t){return null;} }
  public class Mesh : Object { public Vector3[] vertices; public Vector2[] uv; public int[] triangles; public void RecalculateBounds(){} }
  public class Shader : Object {}
  public class Material : Object { public Material(Shader s){} public Material(Material m){} public Shader shader; public bool enableInstancing; public void SetColor(string n, Color c){} public void SetFloat(string n,float f){} }
  public static class Resources { public static T Load<T>(string p) where T : Object { return null; } }
  public static class Graphics { public static void ExecuteCommandBuffer(Rendering.CommandBuffer cb){} }
  public enum ScaleMode { ScaleToFit }
  public static class GUI { public static void DrawTexture(Rect r, Texture t, ScaleMode m, bool a){} public static void Label(Rect r, string s){} }
  public enum EventType { Repaint }
  public class Event { public static Event current; public EventType type; }
  public enum KeyCode { A, D, S, W, LeftArrow, RightArrow, UpArrow, DownArrow, LeftShift, RightShift, Escape }
  public static class Input { public static bool GetKey(KeyCode k){return false;} public static bool GetKeyDown(KeyCode k){return false;} }
}
namespace UnityEngine.Rendering {
  public enum GraphicsDeviceType { Null, Vulkan }
  public class MaterialPropertyBlock {}
  public sealed class GraphicsSettings : UnityEngine.Object { public static UnityEngine.Object GetGraphicsSettings(){return null;} }
  public class CommandBuffer { public string name; public void Clear(){} public void SetRenderTarget(UnityEngine.RenderTexture t){} public void ClearRenderTarget(bool d,bool c,UnityEngine.Color col){} public void SetViewProjectionMatrices(UnityEngine.Matrix4x4 v, UnityEngine.Matrix4x4 p){} public void DrawMesh(UnityEngine.Mesh m, UnityEngine.Matrix4x4 x, UnityEngine.Material mat, int sub, int pass){} public void DrawMeshInstanced(UnityEngine.Mesh m,int sub,UnityEngine.Material mat,int pass,UnityEngine.Matrix4x4[] a,int n){} public void Release(){} }
}
namespace UnityEditor {
  public static class EditorApplication { public static void Exit(int c){} public static bool isPlaying; }
  public class SerializedProperty { public int intValue; }
  public class SerializedObject { public SerializedObject(UnityEngine.Object o){} public SerializedProperty FindProperty(string path){return null;} }
  public enum BuildTarget { StandaloneLinux64, StandaloneWindows64 }
  public enum BuildTargetGroup { Standalone }
  public enum StandaloneBuildSubtarget { Player, Server }
  [Flags] public enum BuildOptions { None = 0 }
  public struct BuildPlayerOptions { public string[] scenes; public string locationPathName; public BuildTarget target; public BuildTargetGroup targetGroup; public int subtarget; public BuildOptions options; }
  public static class BuildPipeline { public static Build.Reporting.BuildReport BuildPlayer(BuildPlayerOptions o){return null;} }
  public class MenuItem : Attribute { public MenuItem(string s){} }
  public static class AssetDatabase { public static void Refresh(){} public static T LoadAssetAtPath<T>(string p) where T : UnityEngine.Object { return null; } public static string AssetPathToGUID(string p){return null;} }
}
namespace UnityEditor.Build.Reporting {
  public enum BuildResult { Unknown, Succeeded, Failed }
  public struct BuildSummary { public BuildResult result; public string outputPath; public ulong totalSize; public int totalErrors; }
  public class BuildReport { public BuildSummary summary; }
}
namespace UnityEditor.SceneManagement {
  public enum NewSceneSetup { EmptyScene }
  public enum NewSceneMode { Single }
  public struct Scene {}
  public static class EditorSceneManager { public static Scene NewScene(NewSceneSetup s, NewSceneMode m){return new Scene();} public static bool SaveScene(Scene s, string p){return true;} }
}
namespace NUnit.Framework {
  public class TestAttribute : Attribute {}
  public class TestCaseSourceAttribute : Attribute { public TestCaseSourceAttribute(string s){} }
  public class TestCaseData { public TestCaseData(params object[] a){} public TestCaseData SetName(string n){return this;} }
  public class Constraint {}
  public static class Is { public static Constraint EqualTo(object o){return null;} public static Constraint Null; public static NotC Not; }
  public class NotC { public Constraint Null; }
  public static class Assert { public static void That(bool b, string m){} public static void That(object o, Constraint c){} public static void That(object o, Constraint c, string m){} public static void IsNotNull(object o, string m){} public static void IsTrue(bool b, string m){} public static void AreEqual(object a, object b, string m){} }
  public static class CollectionAssert { public static void AreEqual(IEnumerable a, IEnumerable b){} }
}
