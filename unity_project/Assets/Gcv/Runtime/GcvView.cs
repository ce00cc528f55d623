// The fight drawn from a Simulation's state, into a RenderTexture (then shown on screen with
// OnGUI and, on capture ticks, saved as PNG). Built-in render pipeline, no GameObject per
// bullet: bullets are drawn with GPU instancing, in batches of at most 1023 Matrix4x4
// (CommandBuffer.DrawMeshInstanced, executed immediately with Graphics.ExecuteCommandBuffer,
// so the picture exists before a capture reads it, with or without a camera or a window).
//
// Floats appear only here, for display: the simulation itself is integer-only (Gcv.Core).
using System;
using System.IO;
using Gcv.Core;
using UnityEngine;
using UnityEngine.Rendering;

namespace Gcv.Runtime
{
    public sealed class GcvView : IDisposable
    {
        const int MaxBatch = 1023;
        const float Q16 = 65536f;

        static readonly Color Background = new Color(0.035f, 0.04f, 0.07f, 1f);
        static readonly Color ArenaColor = new Color(0.09f, 0.10f, 0.16f, 1f);
        static readonly Color BossColor = new Color(0.86f, 0.22f, 0.30f, 1f);
        static readonly Color PlayerColor = new Color(0.35f, 0.85f, 1.00f, 1f);
        static readonly Color PlayerHitColor = new Color(1.00f, 1.00f, 1.00f, 1f);
        static readonly Color GrazeColor = new Color(0.35f, 0.85f, 1.00f, 0.18f);
        static readonly Color[] PhaseColors = {
            new Color(1.00f, 0.78f, 0.30f, 1f), new Color(0.55f, 0.95f, 0.45f, 1f),
            new Color(0.95f, 0.45f, 0.95f, 1f), new Color(0.45f, 0.70f, 1.00f, 1f),
            new Color(1.00f, 0.55f, 0.35f, 1f), new Color(0.85f, 0.85f, 0.85f, 1f),
        };

        readonly SimProgram program;
        readonly RenderTexture target;
        readonly Texture2D readback;
        readonly Mesh quad;
        readonly CommandBuffer cb;
        readonly Material arenaMat, bossMat, playerMat, playerHitMat, grazeMat;
        readonly Material[] phaseMats;
        readonly Matrix4x4[] batch = new Matrix4x4[MaxBatch];
        readonly Matrix4x4 viewMatrix, projMatrix;
        readonly float bulletSize;

        public RenderTexture Target { get { return target; } }

        public GcvView(SimProgram program, int width, int height)
        {
            this.program = program;
            float hw = program.HalfWidth / Q16, hh = program.HalfHeight / Q16;
            // Fit the arena (plus a margin) into the target, keeping its aspect ratio.
            float margin = 1.04f;
            float aspect = (float)width / height;
            float halfW = hw * margin, halfH = hh * margin;
            if (halfW / halfH < aspect) halfW = halfH * aspect; else halfH = halfW / aspect;
            viewMatrix = Matrix4x4.identity; // camera space = world space, looking down -z
            projMatrix = Matrix4x4.Ortho(-halfW, halfW, -halfH, halfH, -1f, 1f);
            bulletSize = Mathf.Max(0.12f, Mathf.Min(hw, hh) * 0.025f);

            target = new RenderTexture(width, height, 0, RenderTextureFormat.ARGB32);
            target.name = "GcvView";
            target.Create();
            readback = new Texture2D(width, height, TextureFormat.RGB24, false);
            quad = BuildQuad();
            cb = new CommandBuffer();
            cb.name = "GCV view";

            // The committed material asset (Resources/GcvInstancedUnlitMaterial.mat, GPU instancing
            // enabled) is what keeps the shader's instancing variant in player builds: Unity strips
            // variants no material in the build uses, and materials made at run time do not count.
            Material template = Resources.Load<Material>(MaterialResource);
            if (template == null) throw new InvalidOperationException("Resources/" + MaterialResource + ".mat is missing from the build");
            arenaMat = MakeMaterial(template, ArenaColor, false);
            bossMat = MakeMaterial(template, BossColor, true);
            playerMat = MakeMaterial(template, PlayerColor, true);
            playerHitMat = MakeMaterial(template, PlayerHitColor, true);
            grazeMat = MakeMaterial(template, GrazeColor, true);
            phaseMats = new Material[PhaseColors.Length];
            for (int i = 0; i < phaseMats.Length; i++) phaseMats[i] = MakeMaterial(template, PhaseColors[i], true);
        }

        public const string MaterialResource = "GcvInstancedUnlitMaterial";

        static Material MakeMaterial(Material template, Color color, bool round)
        {
            var m = new Material(template);
            m.enableInstancing = true;
            m.SetColor("_Color", color);
            m.SetFloat("_Round", round ? 1f : 0f);
            return m;
        }

        static Mesh BuildQuad()
        {
            var mesh = new Mesh();
            mesh.name = "GcvQuad";
            mesh.vertices = new[] {
                new Vector3(-0.5f, -0.5f, 0f), new Vector3(0.5f, -0.5f, 0f),
                new Vector3(0.5f, 0.5f, 0f), new Vector3(-0.5f, 0.5f, 0f),
            };
            mesh.uv = new[] { new Vector2(0f, 0f), new Vector2(1f, 0f), new Vector2(1f, 1f), new Vector2(0f, 1f) };
            mesh.triangles = new[] { 0, 2, 1, 0, 3, 2 };
            mesh.RecalculateBounds();
            return mesh;
        }

        static Matrix4x4 Square(float x, float y, float size)
        {
            return Matrix4x4.TRS(new Vector3(x, y, 0f), Quaternion.identity, new Vector3(size, size, 1f));
        }

        /// <summary>Draws the state after the simulation's last tick into Target.</summary>
        public void Render(Simulation sim)
        {
            var pr = program;
            cb.Clear();
            cb.SetRenderTarget(target);
            cb.ClearRenderTarget(true, true, Background);
            cb.SetViewProjectionMatrices(viewMatrix, projMatrix);
            // arena
            cb.DrawMesh(quad, Matrix4x4.TRS(Vector3.zero, Quaternion.identity,
                new Vector3(2f * pr.HalfWidth / Q16, 2f * pr.HalfHeight / Q16, 1f)), arenaMat, 0, 0);
            // boss
            cb.DrawMesh(quad, Square(pr.BossX / Q16, pr.BossY / Q16, 1.2f), bossMat, 0, 0);
            // bullets: one instanced batch per phase colour, <= 1023 matrices each
            int n = sim.Count;
            for (int c = 0; c < phaseMats.Length; c++)
            {
                int k = 0;
                for (int i = 0; i < n; i++)
                {
                    if (sim.PH[i] % phaseMats.Length != c) continue;
                    batch[k++] = Square(sim.X[i] / Q16, sim.Y[i] / Q16, bulletSize);
                    if (k == MaxBatch)
                    {
                        cb.DrawMeshInstanced(quad, 0, phaseMats[c], 0, batch, k);
                        k = 0;
                    }
                }
                if (k > 0) cb.DrawMeshInstanced(quad, 0, phaseMats[c], 0, batch, k);
            }
            // player: graze ring, then the hit circle (white while invulnerable)
            float px = sim.Px / Q16, py = sim.Py / Q16;
            cb.DrawMesh(quad, Square(px, py, 2f * pr.GrazeRadius / Q16), grazeMat, 0, 0);
            bool invulnerable = sim.Tick - 1 < sim.InvulnUntil;
            bool blink = invulnerable && ((sim.Tick >> 2) & 1) == 0;
            cb.DrawMesh(quad, Square(px, py, Mathf.Max(0.2f, 2f * pr.HitRadius / Q16)), blink ? playerHitMat : playerMat, 0, 0);
            Graphics.ExecuteCommandBuffer(cb);
        }

        /// <summary>Shows Target on screen (call from OnGUI during Repaint).</summary>
        public void Blit()
        {
            GUI.DrawTexture(new Rect(0, 0, Screen.width, Screen.height), target, ScaleMode.ScaleToFit, false);
        }

        /// <summary>Reads Target back and writes it as a PNG (written to path.tmp, then renamed).</summary>
        public void SavePng(string path)
        {
            var previous = RenderTexture.active;
            RenderTexture.active = target;
            readback.ReadPixels(new Rect(0, 0, target.width, target.height), 0, 0, false);
            readback.Apply(false);
            RenderTexture.active = previous;
            byte[] png = readback.EncodeToPNG();
            string tmp = path + ".tmp";
            File.WriteAllBytes(tmp, png);
            if (File.Exists(path)) File.Delete(path);
            File.Move(tmp, path);
        }

        public void Dispose()
        {
            cb.Release();
            target.Release();
            UnityEngine.Object.Destroy(target);
            UnityEngine.Object.Destroy(readback);
            UnityEngine.Object.Destroy(quad);
            UnityEngine.Object.Destroy(arenaMat);
            UnityEngine.Object.Destroy(bossMat);
            UnityEngine.Object.Destroy(playerMat);
            UnityEngine.Object.Destroy(playerHitMat);
            UnityEngine.Object.Destroy(grazeMat);
            foreach (var m in phaseMats) UnityEngine.Object.Destroy(m);
        }
    }
}
