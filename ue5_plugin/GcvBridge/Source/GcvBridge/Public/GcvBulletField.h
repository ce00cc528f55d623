// Draws one GCV fight: bullets as instanced spheres (one UInstancedStaticMeshComponent per
// phase, coloured like the Python renderer), the boss, the player and an arena backdrop,
// seen by an orthographic camera. Sim coordinates (Q16.16, +y up) map to the actor's local
// Y (right) and Z (up); 1 world unit = 100 cm.
//
// Instances are never rebuilt: each frame the first N instances of a phase's component get
// the bullets' transforms in one BatchUpdateInstancesTransforms call, the component grows
// with AddInstance when a phase has more bullets than ever before, and instances no longer
// needed are parked at zero scale.
#pragma once

#include "CoreMinimal.h"
#include "GameFramework/Actor.h"

#include "GcvBulletField.generated.h"

class ACameraActor;
class UInstancedStaticMeshComponent;
class UMaterialInstanceDynamic;
class UMaterialInterface;
class UStaticMesh;
class UStaticMeshComponent;

namespace gcv
{
struct Program;
class Simulation;
}

UCLASS(NotPlaceable, Transient)
class GCVBRIDGE_API AGcvBulletField : public AActor
{
	GENERATED_BODY()

public:
	AGcvBulletField();

	// Creates the components for this program (phase count, arena size, boss position) and
	// an orthographic camera framing the arena; returns the camera.
	ACameraActor* Setup(const gcv::Program& Program);

	// Shows the state after the last simulated tick.
	void Draw(const gcv::Simulation& Sim);

	ACameraActor* GetViewCamera() const { return ViewCamera; }

private:
	UPROPERTY()
	TObjectPtr<USceneComponent> Root;

	UPROPERTY()
	TArray<TObjectPtr<UInstancedStaticMeshComponent>> PhaseBullets;

	UPROPERTY()
	TObjectPtr<UStaticMeshComponent> PlayerMarker;

	UPROPERTY()
	TObjectPtr<UStaticMeshComponent> BossMarker;

	UPROPERTY()
	TObjectPtr<UStaticMeshComponent> Backdrop;

	UPROPERTY()
	TObjectPtr<UMaterialInstanceDynamic> PlayerMaterial;

	UPROPERTY()
	TObjectPtr<UStaticMesh> SphereMesh;

	UPROPERTY()
	TObjectPtr<UMaterialInterface> BaseMaterial;

	UPROPERTY()
	TObjectPtr<ACameraActor> ViewCamera;

	TArray<int32> VisibleCount;            // instances showing a bullet, per phase
	TArray<TArray<FTransform>> Scratch;    // per-phase transforms, reused every frame
	int32 PlayerColorState = -1;

	UStaticMeshComponent* MakeMarker(const TCHAR* Name, UStaticMesh* Mesh, const FLinearColor& Color);
	UMaterialInstanceDynamic* MakeMaterial(const FLinearColor& Color);
};
